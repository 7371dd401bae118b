import CTAP2
import CardCrypto
import ISO7816

/// The card as a test double: state set directly, faults, timing, leaving the field.
///
/// ```swift
/// let card = try VirtualCard(imageAt: "card.img")
/// try card.setPIN("123456")
/// let alice = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
/// try card.injectFault(.bogusSignature, on: .ctap(.getAssertion), once: true)
/// card.timing = .realistic
/// ```
extension VirtualCard {
    // MARK: - State

    /// Sets the PIN and resets the retry counter to 8 (see ``Authenticator/setPIN(_:)``).
    public func setPIN(_ pin: String) throws(StateControlError) {
        try authenticator.setPIN(pin)
    }

    /// Sets the PIN retry counter (0...8).
    public func setPINRetries(_ retries: Int) throws(StateControlError) {
        try authenticator.setPINRetries(retries)
    }

    /// Sets the global signature counter.
    public func setSignatureCounter(_ counter: UInt32) throws(StateControlError) {
        try authenticator.setSignatureCounter(counter)
    }

    /// Puts a credential for `rpId` and `user` on the card, with `privateKey` or a new key, and
    /// returns its ID and public key. A non-discoverable credential is only minted (its ID wraps
    /// the key under the card's secret); a discoverable one is stored.
    @discardableResult
    public func addCredential(rpId: String, user: CredentialUser, discoverable: Bool = true,
                              privateKey: P256PrivateKey? = nil) throws(StateControlError) -> CredentialRecord {
        try authenticator.addCredential(CredentialSeed(rpId: rpId, user: user, discoverable: discoverable,
                                                       privateKey: privateKey))
    }

    /// Puts the credential `seed` describes on the card (see ``Authenticator/addCredential(_:)``).
    @discardableResult
    public func addCredential(_ seed: CredentialSeed) throws(StateControlError) -> CredentialRecord {
        try authenticator.addCredential(seed)
    }

    /// The discoverable credentials on the card with their public keys, oldest first.
    public var credentialRecords: [CredentialRecord] { authenticator.credentialRecords }

    /// Deletes a discoverable credential.
    public func removeCredential(id: [UInt8]) throws(StateControlError) {
        try authenticator.removeCredential(id: id)
    }

    // MARK: - Faults, timing, field

    /// Injects a fault (see ``Fault``); `once` defaults to the effect's own default.
    @discardableResult
    public func injectFault(_ effect: FaultEffect, on scope: FaultScope = .any,
                            once: Bool? = nil) throws(FaultError) -> InjectedFault {
        try control.inject(Fault(effect, on: scope, once: once))
    }

    /// Removes every injected fault.
    public func clearFaults() {
        control.clearFaults()
    }

    /// Every time an injected fault acted, oldest first.
    public var faultLog: [FaultLogEntry] { control.log }

    /// How long operations take; ``TimingProfile/off`` (the default) or ``TimingProfile/realistic``.
    public var timing: TimingProfile {
        get { control.timing }
        set { control.timing = newValue }
    }

    /// Whether the card is in the field: false after it left it (until the host powers it).
    public var isInField: Bool { control.isInField }

    /// ``transmit(_:)`` for hosts that want leaving the field as an error: throws
    /// ``CardRemovedError`` instead of answering an empty array.
    public func exchange(_ apdu: [UInt8]) throws(CardRemovedError) -> [UInt8] {
        let response = transmit(apdu)
        guard !response.isEmpty else { throw CardRemovedError(command: apdu) }
        return response
    }
}
