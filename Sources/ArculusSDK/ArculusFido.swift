import CTAPClient

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
/// Every operation taps the card once (``CardConnector/connect()``; a refused registration's
/// rollback taps it again), waits for it at most ``timeouts``, and stops waiting when its task is
/// cancelled (701 Cancelled). Every value
/// passed in is checked before the card is tapped (RP IDs, origins and whether they fit,
/// challenges, credential IDs, user names, PINs; the rules are ``InputCheck``'s): a caller's
/// mistake is code 700 Invalid Input with ``ArculusFidoError/input`` saying which parameter and
/// why, and the card is left untouched.
public final class ArculusFido: Sendable {
    /// How operations reach the card.
    public let card: any CardConnector
    /// How long operations wait for the card.
    public let timeouts: CardTimeouts

    /// An SDK over the card `card` connects to, waiting for it as `timeouts` say.
    public init(card: any CardConnector, timeouts: CardTimeouts = CardTimeouts()) {
        self.card = card
        self.timeouts = timeouts
    }

    /// `setPin`, `changePin`, `registerUser` and `authenticateUser` with typed results, throwing
    /// ``ArculusFidoError``: `try await arculusFido.throwing.setPin(pin: "123456")`.
    public var throwing: ArculusFidoThrowing { ArculusFidoThrowing(sdk: self) }

    /// Runs `body` with one tap of the card for `operation`: waits for `card` to connect (at
    /// most `timeouts.tap`), opens the CTAP client (SELECT, getInfo) and runs `body` with it in
    /// the tap's task (``CardTap``), then closes the connection whatever happened, before this
    /// returns (a reader connection is released, `SCardDisconnect` leaving the card as it is,
    /// while the process still runs; otherwise pcscd would clean up its handle, which resets the
    /// card).
    func withCard<T: Sendable>(_ operation: ArculusFidoOperation,
                               _ body: @escaping @Sendable (AsyncCTAPClient, ArculusFidoOperation) async throws(ArculusFidoError) -> T)
        async throws(ArculusFidoError) -> T {
        try ArculusFidoError.throwIfCancelled(during: operation)
        let connection: any CardConnection
        do {
            let limit = CardTimeouts.text(timeouts.tap)
            let card = card
            connection = try await CardWait.value(within: timeouts.tap, timedOut: { .cardRemoved("none was presented within \(limit)") }) {
                () throws(CardTransportError) in try await card.connect()
            }
        } catch {
            throw ArculusFidoError(connecting: error, during: operation)
        }
        let tap = CardTap(connection: connection, answerLimit: timeouts.answer)
        do {
            let value = try await tap.run(during: operation) { () throws(ArculusFidoError) -> T in
                let client: AsyncCTAPClient
                do throws(CTAPClientError) {
                    client = try await AsyncCTAPClient(transport: tap)
                } catch {
                    throw ArculusFidoError(error, during: operation)
                }
                return try await body(client, operation)
            }
            await tap.close()
            return value
        } catch {
            await tap.close()
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
        try await withCard(.deleteCredentialByCredentialId) { client, operation throws(ArculusFidoError) in
            try await CardOperations.delete(client, pin: pin, credentialID: id, operation)
        }
    }

    /// The discoverable credentials on the card (all, or those of `rpId`), through credential
    /// management.
    public func listCredentials(pin: String, rpId: String? = nil) async throws(ArculusFidoError) -> [CardCredential] {
        let check = InputCheck(operation: .listCredentials)
        try check.pin(pin)
        if let rpId { try check.rpID(rpId) }
        return try await withCard(.listCredentials) { client, operation throws(ArculusFidoError) in
            try await CardOperations.list(client, pin: pin, rpID: rpId, operation).map(CardCredential.init)
        }
    }

    /// Erases the card (authenticatorReset: every credential and the PIN) and sets `pin` as its
    /// new PIN. Cards allow a reset only within seconds of being tapped (605 otherwise).
    @discardableResult
    public func resetDevice(pin: String) async throws(ArculusFidoError) -> String {
        try InputCheck(operation: .resetDevice).pin(pin, isNew: true)
        try await withCard(.resetDevice) { client, operation throws(ArculusFidoError) in
            try await CardOperations.reset(client, newPIN: pin, operation)
        }
        return "card reset, PIN set"
    }

    /// What the card reports: getInfo and what getPINRetries answers (``CardInfo``).
    public func cardInfo() async throws(ArculusFidoError) -> CardInfo {
        try await withCard(.cardInfo) { client, operation throws(ArculusFidoError) -> CardInfo in
            do throws(CTAPClientError) {
                return CardInfo(info: client.info, pinRetries: try await client.pinRetries().retries, pinRetriesRefusal: nil)
            } catch {
                guard case .ctap(let refusal) = error else { throw ArculusFidoError(error, during: operation) }
                return CardInfo(info: client.info, pinRetries: nil, pinRetriesRefusal: refusal.status)
            }
        }
    }
}
