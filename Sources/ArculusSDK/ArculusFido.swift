import CBOR
import CTAPClient
import CardCrypto
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
    func withCard<T: Sendable>(_ operation: String,
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

    /// Sets the card's first PIN ("6+ digit" in the vendor's words; the card's own minimum is in
    /// getInfo). Returns a confirmation message.
    @discardableResult
    public func setPin(pin: String) async throws(ArculusFidoError) -> String {
        try await withCard("setPin") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.setPIN(client, pin, operation)
            }
        }
        return "PIN set"
    }

    /// Changes the PIN. A wrong `oldPin` costs one of the card's PIN attempts (608).
    @discardableResult
    public func changePin(oldPin: String, newPin: String) async throws(ArculusFidoError) -> String {
        try await withCard("changePin") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.changePIN(client, from: oldPin, to: newPin, operation)
            }
        }
        return "PIN changed"
    }

    // MARK: - Card-only operations (phase 2 of the backend-proxied flow)

    /// Registers a discoverable credential for `username` at `rpId` over a challenge a backend
    /// obtained (phase 2 of the backend-proxied flow) and returns the registration response JSON
    /// the backend forwards to its FIDO2 server: `id`, `rawId`, `type`, `response.clientDataJSON`
    /// (built from `challenge` and `origin`), `response.attestationObject`, base64url.
    ///
    /// The user handle is the UTF-8 `username` (its SHA-256 when longer than 64 bytes).
    public func registerCardOnly(pin: String, username: String, displayName: String, rpId: String,
                                 challenge: String, origin: String) async throws(ArculusFidoError) -> String {
        let clientData = try ClientDataJSON.create(challenge: challenge, origin: origin)
        let result = try await withCard("registerCardOnly") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.register(
                    client, pin: pin, relyingParty: RelyingPartyEntity(id: rpId, name: rpId),
                    user: UserEntity(id: CardOperations.userHandle(for: username), name: username,
                                     displayName: displayName.isEmpty ? username : displayName),
                    clientData: clientData, operation)
            }
        }
        return CardResponseJSON.registration(result, clientData: clientData).text
    }

    /// Signs the backend's authentication challenge (phase 2), with the options shaped as the
    /// samples' `createOptionsResponseFromBackend` makes them, and returns the authentication
    /// response JSON: `id`, `rawId`, `type`, `response.clientDataJSON`,
    /// `response.authenticatorData`, `response.signature`, `response.userHandle`.
    ///
    /// With an empty allow list the card's discoverable credentials for the RP are searched for
    /// `username`'s (603 User Not Found when none is).
    public func authenticateCardOnly(pin: String, username: String, rpId: String,
                                     optionsResponse: ArculusFidoOptionsAuthorizationResponse) async throws(ArculusFidoError) -> String {
        let operation = "authenticateCardOnly"
        let effectiveRP = optionsResponse.rpId ?? rpId
        if let expected = optionsResponse.rpIdHash, [UInt8](expected) != SHA256.hash(Array(effectiveRP.utf8)) {
            throw ArculusFidoError(.unknown, "\(operation): optionsResponse.rpIdHash is not SHA-256 of '\(effectiveRP)'")
        }
        let clientData: ClientDataJSON
        if let ready = optionsResponse.clientDataJSONbase64 {
            guard let bytes = Base64URL.decode(ready) else {
                throw ArculusFidoError(.unknown, "\(operation): optionsResponse.clientDataJSONbase64 is not base64")
            }
            clientData = ClientDataJSON(bytes: bytes)
            if let hash = optionsResponse.clienthash, [UInt8](hash) != clientData.hash {
                throw ArculusFidoError(.unknown, "\(operation): optionsResponse.clienthash is not SHA-256 of its clientDataJSON")
            }
        } else {
            guard let challenge = optionsResponse.challenge, let origin = optionsResponse.origin else {
                throw ArculusFidoError(.unknown, "\(operation): optionsResponse needs clientDataJSONbase64, or challenge and origin")
            }
            clientData = try ClientDataJSON.get(challenge: challenge, origin: origin)
        }
        return try await authenticate(operation, pin: pin, username: username, rpId: effectiveRP,
                                      clientData: clientData, allowList: optionsResponse.allowList)
    }

    /// ``authenticateCardOnly(pin:username:rpId:optionsResponse:)`` with the challenge and origin
    /// given directly, like ``registerCardOnly(pin:username:displayName:rpId:challenge:origin:)``.
    ///
    /// - Parameter allowCredentials: credential IDs (base64url) the server accepts; empty to use
    ///   `username`'s discoverable credential.
    public func authenticateCardOnly(pin: String, username: String, rpId: String, challenge: String, origin: String,
                                     allowCredentials: [String] = []) async throws(ArculusFidoError) -> String {
        let clientData = try ClientDataJSON.get(challenge: challenge, origin: origin)
        return try await authenticate("authenticateCardOnly", pin: pin, username: username, rpId: rpId,
                                      clientData: clientData, allowList: allowCredentials)
    }

    private func authenticate(_ operation: String, pin: String, username: String, rpId: String,
                              clientData: ClientDataJSON, allowList: [String]) async throws(ArculusFidoError) -> String {
        var descriptors: [CredentialDescriptor] = []
        for id in allowList {
            guard let bytes = Base64URL.decode(id), !bytes.isEmpty else {
                throw ArculusFidoError(.unknown, "\(operation): the allowed credential ID '\(id)' is not base64url")
            }
            descriptors.append(CredentialDescriptor(id: bytes))
        }
        let allowed = descriptors
        let assertion = try await withCard(operation) { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.authenticate(client, pin: pin, rpID: rpId, clientDataHash: clientData.hash,
                                                allowList: allowed, username: username, operation)
            }
        }
        return CardResponseJSON.authentication(assertion, clientData: clientData).text
    }

    // MARK: - Credential management and reset

    /// Deletes the credential `credentialId` (the `id` of a registration response, base64url)
    /// from the card: the rollback when a backend refuses a registration. 602 when the card
    /// holds no such credential.
    public func deleteCredentialByCredentialId(pin: String, credentialId: String) async throws(ArculusFidoError) {
        guard let id = Base64URL.decode(credentialId), !id.isEmpty else {
            throw ArculusFidoError(.unknown, "deleteCredentialByCredentialId: '\(credentialId)' is not a base64url credential ID")
        }
        try await withCard("deleteCredentialByCredentialId") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.delete(client, pin: pin, credentialID: id, operation)
            }
        }
    }

    /// The discoverable credentials on the card (all, or those of `rpId`), through credential
    /// management.
    public func listCredentials(pin: String, rpId: String? = nil) async throws(ArculusFidoError) -> [CardCredential] {
        try await withCard("listCredentials") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.list(client, pin: pin, rpID: rpId, operation).map(CardCredential.init)
            }
        }
    }

    /// Erases the card (authenticatorReset: every credential and the PIN) and sets `pin` as its
    /// new PIN. Cards allow a reset only within seconds of being tapped (605 otherwise).
    @discardableResult
    public func resetDevice(pin: String) async throws(ArculusFidoError) -> String {
        try await withCard("resetDevice") { session throws(ArculusFidoError) in
            try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.reset(client, newPIN: pin, operation)
            }
        }
        return "card reset, PIN set"
    }

    /// What the card reports: getInfo and the PIN retry counter (nil without a PIN).
    public func cardInfo() async throws(ArculusFidoError) -> (info: AuthenticatorInfo, pinRetries: Int?) {
        let (info, retries) = try await withCard("cardInfo") { session throws(ArculusFidoError) in
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
