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

    /// Sets the PIN and resets the retry counter to 8. The PIN must meet the card's PIN policy
    /// (``PINPolicy``: at least the profile's `minPINLength` code points, at most 63 bytes of
    /// UTF-8, no NUL). Any PIN token is forgotten, as after changePIN.
    public func setPIN(_ pin: String) throws(StateControlError) {
        try commitStateChanges(try authenticator.changesSettingPIN(pin))
        model.withAuthenticator { $0.forgetPINSession() }
    }

    /// Removes the PIN, with its retry counter back to 8: the card is as one whose PIN was never
    /// set (credentials, counter and PIN policy stay). Any PIN token is forgotten.
    public func clearPIN() throws(StateControlError) {
        try commitStateChanges(authenticator.changesClearingPIN())
        model.withAuthenticator { $0.forgetPINSession() }
    }

    /// Sets the PIN retry counter: 0 blocks the PIN until a reset (CTAP 2.1 §6.5.2.2).
    public func setPINRetries(_ retries: Int) throws(StateControlError) {
        try commitStateChanges(try authenticator.changesSettingPINRetries(retries))
    }

    /// Sets the global signature counter (the next assertion reports `counter + 1`).
    public func setSignatureCounter(_ counter: UInt32) throws(StateControlError) {
        try commitStateChanges(authenticator.changesSettingSignatureCounter(counter))
    }

    /// Puts a credential for `rpId` and `user` on the card, with `privateKey` or a new key, and
    /// returns its ID and public key. A non-discoverable credential is only minted (its ID wraps
    /// the key under the card's secret); a discoverable one is stored.
    @discardableResult
    public func addCredential(rpId: String, user: CredentialUser, discoverable: Bool = true,
                              privateKey: P256PrivateKey? = nil) throws(StateControlError) -> CredentialRecord {
        try addCredential(CredentialSeed(rpId: rpId, user: user, discoverable: discoverable,
                                         privateKey: privateKey.map(CredentialPrivateKey.init)))
    }

    /// Puts the credential `seed` describes on the card and returns its record, with the
    /// credential ID and public key. A discoverable credential replaces the card's credential
    /// for the same RP and user handle, as makeCredential does; the signature counter is not
    /// touched. A non-discoverable credential changes nothing on the card: its ID is minted.
    @discardableResult
    public func addCredential(_ seed: CredentialSeed) throws(StateControlError) -> CredentialRecord {
        let (record, changes) = try model.withAuthenticator { (authenticator) throws(StateControlError) in
            try authenticator.credentialAdding(seed)
        }
        try commitStateChanges(changes)
        return record
    }

    /// The discoverable credentials on the card with their public keys, oldest first.
    public var credentialRecords: [CredentialRecord] { authenticator.credentialRecords }

    /// Deletes a discoverable credential.
    public func removeCredential(id: [UInt8]) throws(StateControlError) {
        try commitStateChanges(try authenticator.changesRemovingCredential(id: id))
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
        get { model.timing }
        set { model.timing = newValue }
    }

    /// Whether the card is in the field: false after it left it (until the host powers it).
    public var isInField: Bool { model.isInField }

    /// ``transmit(_:)`` for hosts that want leaving the field as an error: throws
    /// ``CardRemovedError`` instead of answering an empty array.
    public func exchange(_ apdu: [UInt8]) throws(CardRemovedError) -> [UInt8] {
        let response = transmit(apdu)
        guard !response.isEmpty else { throw CardRemovedError(command: apdu) }
        return response
    }
}
