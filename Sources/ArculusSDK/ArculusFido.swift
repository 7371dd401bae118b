import CTAPClient
import Dispatch

/// The SDK-shaped operations on an Arculus FIDO2 card, named and parameterised as the vendor's
/// Arculus FIDO SDK sample apps call them: `setPin`, `changePin`, `registerCardOnly`,
/// `authenticateCardOnly`, `deleteCredentialByCredentialId`, `resetDevice`, and the two flows
/// (`registerUser`/`authenticateUser` against a FIDO2 server; the backend-proxied 3-phase flow).
///
/// ```swift
/// let arculusFido = ArculusFido(card: readerConnector)
/// try await arculusFido.setPin(pin: "123456")
/// let cardResponse = try await arculusFido.registerCardOnly(
///     pin: "123456", username: "alice@example.com", displayName: "Alice",
///     rpId: "example.com", challenge: challenge, origin: "https://example.com")
/// ```
///
/// Every operation taps the card once (``CardConnector/connect()``), runs on the SDK's card
/// queue, and throws ``ArculusFidoError`` with the vendor SDK's code (600 Tag Lost … 609).
/// Unlike the samples' non-throwing calls, failures are thrown, not returned as text: write
/// `try await` where the samples write `await`.
///
/// Every value passed in is checked before the card is tapped (RP IDs, origins and whether they
/// fit, challenges, credential IDs, user names, PINs; the rules are ``InputCheck``'s): a
/// caller's mistake is code 700 Invalid Input with ``ArculusFidoError/input`` saying which
/// parameter and why, and the card is left untouched.
public final class ArculusFido: Sendable {
    /// How operations reach the card.
    public let card: any CardConnector
    /// Card I/O is serialised here (card transports are not thread-safe).
    let cardQueue = DispatchQueue(label: "ArculusSDK.card")

    /// An SDK over the card `card` connects to.
    public init(card: any CardConnector) {
        self.card = card
    }

    /// Runs `body` with one tap of the card for `operation`, and closes the session afterwards
    /// whatever happened.
    func withCard<T: Sendable>(_ operation: ArculusFidoOperation,
                               _ body: (CardSession) async throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        let session = try await CardSession.open(card, queue: cardQueue, operation: operation)
        do {
            let value = try await body(session)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
    }

    // MARK: - PIN

    /// Sets the card's first PIN ("6+ digit" in the vendor's words; at least 4 characters and at
    /// most 63 bytes, or the card's own minimum from getInfo if higher). Returns a confirmation.
    @discardableResult
    public func setPin(pin: String) async throws(ArculusFidoError) -> String {
        try InputCheck(operation: .setPin).pin(pin, isNew: true)
        try await withCard(.setPin) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.setPIN(client, pin, operation)
            }
        }
        return "PIN set"
    }

    /// Changes the PIN. A wrong `oldPin` costs one of the card's PIN attempts (608).
    @discardableResult
    public func changePin(oldPin: String, newPin: String) async throws(ArculusFidoError) -> String {
        let check = InputCheck(operation: .changePin)
        try check.pin(oldPin, .oldPin)
        try check.pin(newPin, .newPin, isNew: true)
        try await withCard(.changePin) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.changePIN(client, from: oldPin, to: newPin, operation)
            }
        }
        return "PIN changed"
    }

    // MARK: - Credential management and reset

    /// Deletes the credential `credentialId` (the `id` of a registration response, base64url)
    /// from the card: the rollback when a backend refuses a registration. 602 when the card
    /// holds no such credential.
    public func deleteCredentialByCredentialId(pin: String, credentialId: String) async throws(ArculusFidoError) {
        let check = InputCheck(operation: .deleteCredentialByCredentialId)
        try check.pin(pin)
        let id = try check.credentialID(credentialId)
        try await withCard(.deleteCredentialByCredentialId) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.delete(client, pin: pin, credentialID: id, operation)
            }
        }
    }

    /// The discoverable credentials on the card (all, or those of `rpId`), through credential
    /// management.
    public func listCredentials(pin: String, rpId: String? = nil) async throws(ArculusFidoError) -> [CardCredential] {
        let check = InputCheck(operation: .listCredentials)
        try check.pin(pin)
        if let rpId { try check.rpID(rpId) }
        return try await withCard(.listCredentials) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.list(client, pin: pin, rpID: rpId, operation).map(CardCredential.init)
            }
        }
    }

    /// Erases the card (authenticatorReset: every credential and the PIN) and sets `pin` as its
    /// new PIN. Cards allow a reset only within seconds of being tapped (605 otherwise).
    @discardableResult
    public func resetDevice(pin: String) async throws(ArculusFidoError) -> String {
        try InputCheck(operation: .resetDevice).pin(pin, isNew: true)
        try await withCard(.resetDevice) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.reset(client, newPIN: pin, operation)
            }
        }
        return "card reset, PIN set"
    }

    /// What the card reports: getInfo and the PIN retry counter (nil without a PIN).
    public func cardInfo() async throws(ArculusFidoError) -> (info: AuthenticatorInfo, pinRetries: Int?) {
        let (info, retries) = try await withCard(.cardInfo) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) -> CardInfoSnapshot in
                let retries = client.info.isPINSet == true
                    ? try CardOperations.run(client, operation) { () throws(CTAPClientError) in try client.pinRetries().retries }
                    : nil
                return CardInfoSnapshot(info: client.info, pinRetries: retries)
            }
        }.pair
        return (info, retries)
    }
}

/// getInfo and the retry counter, as one Sendable value to carry off the card queue.
private struct CardInfoSnapshot: Sendable {
    let info: AuthenticatorInfo
    let pinRetries: Int?

    var pair: (AuthenticatorInfo, Int?) { (info, pinRetries) }
}
