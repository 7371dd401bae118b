import CTAPClient
import Dispatch

/// The SDK-shaped operations on an Arculus FIDO2 card, named and parameterised as the vendor's
/// Arculus FIDO SDK sample apps call them: `setPin`, `changePin`, `registerCardOnly`,
/// `authenticateCardOnly`, `deleteCredentialByCredentialId`, `resetDevice`, and the two flows
/// (`registerUser`/`authenticateUser` against a FIDO2 server; the backend-proxied 3-phase flow).
///
/// ```swift
/// let arculusFido = ArculusFido(card: connector)          // ArculusFidoSDKFramework: ArculusFido()
/// let result = await arculusFido.setPin(pin: "123456")   // "PIN set", or the error's text
/// let cardResponse = try await arculusFido.registerCardOnly(
///     pin: "123456", username: "alice@example.com", displayName: "Alice",
///     rpId: "example.com", challenge: challenge, origin: "https://example.com")
/// ```
///
/// As in the samples, `setPin`, `changePin`, `registerUser` and `authenticateUser` never throw:
/// they return what happened in words an alert can show (the error's text with its vendor code
/// when it failed). ``throwing`` has the same four with typed results and typed errors. The
/// card-only operations throw ``ArculusFidoError`` with the vendor SDK's code (600 Tag Lost …
/// 609), which is a `LocalizedError`.
///
/// Every operation taps the card once (``CardConnector/connect()``), waits for it at most
/// ``timeouts``, and stops waiting when its task is cancelled (701 Cancelled). Every value
/// passed in is checked before the card is tapped (RP IDs, origins and whether they fit,
/// challenges, credential IDs, user names, PINs; the rules are ``InputCheck``'s): a caller's
/// mistake is code 700 Invalid Input with ``ArculusFidoError/input`` saying which parameter and
/// why, and the card is left untouched.
public final class ArculusFido: Sendable {
    /// How operations reach the card.
    public let card: any CardConnector
    /// How long operations wait for the card.
    public let timeouts: CardTimeouts
    /// The CTAP client runs here (it is synchronous and not thread-safe).
    let cardQueue = DispatchQueue(label: "ArculusSDK.card")

    /// An SDK over the card `card` connects to, waiting for it as `timeouts` say.
    public init(card: any CardConnector, timeouts: CardTimeouts = CardTimeouts()) {
        self.card = card
        self.timeouts = timeouts
    }

    /// `setPin`, `changePin`, `registerUser` and `authenticateUser` with typed results, throwing
    /// ``ArculusFidoError``: `try await arculusFido.throwing.setPin(pin: "123456")`.
    public var throwing: ArculusFidoThrowing { ArculusFidoThrowing(sdk: self) }

    /// Runs `body` with one tap of the card for `operation`, and closes the session afterwards
    /// whatever happened.
    func withCard<T: Sendable>(_ operation: ArculusFidoOperation,
                               _ body: (CardSession) async throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        let session = try await CardSession.open(card, queue: cardQueue, operation: operation, timeouts: timeouts)
        do {
            let value = try await body(session)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
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

    /// What the card reports: getInfo and what getPINRetries answers (``CardInfo``).
    public func cardInfo() async throws(ArculusFidoError) -> CardInfo {
        try await withCard(.cardInfo) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) -> CardInfo in
                do throws(CTAPClientError) {
                    return CardInfo(info: client.info, pinRetries: try client.pinRetries().retries, pinRetriesRefusal: nil)
                } catch {
                    guard case .ctap(let refusal) = error else { throw ArculusFidoError(error, during: operation) }
                    return CardInfo(info: client.info, pinRetries: nil, pinRetriesRefusal: refusal.status)
                }
            }
        }
    }
}
