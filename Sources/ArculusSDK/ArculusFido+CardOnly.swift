import Foundation
import CTAPClient
import CardCrypto
import JSONSupport

extension ArculusFido {
    /// Registers a discoverable credential for `username` at `rpId` over a challenge a backend
    /// obtained (phase 2 of the backend-proxied flow) and returns the registration response JSON
    /// the backend forwards to its FIDO2 server, WebAuthn Level 3's `toJSON()` form
    /// (``CardResponseJSON``): `id`, `rawId`, `type`, `authenticatorAttachment`,
    /// `clientExtensionResults`, and `response` with `clientDataJSON` (built from `challenge`
    /// and `origin`), `authenticatorData`, `transports`, `publicKey`, `publicKeyAlgorithm`,
    /// `attestationObject`; bytes in base64url.
    ///
    /// The user handle is `userId` when given (the server's `user.id`, base64url), else the UTF-8
    /// `username` (its SHA-256 when longer than 64 bytes): the sample apps pass no user ID, so a
    /// server that checks `userHandle` at authentication must accept that value. The name and
    /// display name stored on the card are cut to 64 bytes. `rpId` must be the host of `origin`
    /// or a registrable suffix of it, as browsers require, unless `allowRPIDMismatch`. The
    /// challenge may be base64url or standard base64 (`base64EncodedString()`).
    public func registerCardOnly(pin: String, username: String, displayName: String, rpId: String,
                                 challenge: String, origin: String, userId: String? = nil,
                                 allowRPIDMismatch: Bool = false) async throws(ArculusFidoError) -> String {
        let check = InputCheck(operation: .registerCardOnly)
        let (challengeBytes, webOrigin) = try check.cardOnly(
            pin: pin, username: username, rpId: rpId, challenge: challenge, origin: origin, allowMismatch: allowRPIDMismatch)
        let handle = try userId.map { (text: String) throws(ArculusFidoError) in try check.userHandle(text) } ?? CardOperations.userHandle(for: username)
        let clientData = ClientDataJSON(type: "webauthn.create", challenge: challengeBytes, origin: webOrigin)
        let user = UserEntity(id: handle, name: username, displayName: displayName.isEmpty ? username : displayName)
        let result = try await register(.registerCardOnly, pin: pin, relyingParty: RelyingPartyEntity(id: rpId, name: rpId),
                                        user: user, clientData: clientData)
        return CardResponseJSON.registration(result, clientData: clientData).text
    }

    /// The card's part of a registration, for `operation`, over checked values.
    func register(_ operation: ArculusFidoOperation, pin: String, relyingParty: RelyingPartyEntity, user: UserEntity,
                  clientData: ClientDataJSON) async throws(ArculusFidoError) -> AttestationResult {
        try await withCard(operation) { client, operation throws(ArculusFidoError) in
            try await CardOperations.register(client, pin: pin, relyingParty: relyingParty, user: user, clientData: clientData, operation)
        }
    }

    /// Signs the backend's authentication challenge (phase 2), with the options shaped as the
    /// samples' `createOptionsResponseFromBackend` makes them, and returns the authentication
    /// response JSON (WebAuthn Level 3's `toJSON()` form): `id`, `rawId`, `type`,
    /// `authenticatorAttachment`, `clientExtensionResults`, `response.clientDataJSON`,
    /// `response.authenticatorData`, `response.signature`, and `response.userHandle` when the
    /// card returned one.
    ///
    /// With an empty allow list the card's discoverable credentials for the RP are searched for
    /// `username`'s (603 User Not Found when none is). The RP ID (`optionsResponse.rpId`, else
    /// `rpId`) must fit the origin (`optionsResponse.origin`, or the one inside
    /// `clientDataJSONbase64`) unless `allowRPIDMismatch`.
    public func authenticateCardOnly(pin: String, username: String, rpId: String,
                                     optionsResponse: ArculusFidoOptionsAuthorizationResponse,
                                     allowRPIDMismatch: Bool = false) async throws(ArculusFidoError) -> String {
        let operation = ArculusFidoOperation.authenticateCardOnly
        let check = InputCheck(operation: operation)
        try check.pin(pin)
        try check.username(username)
        let effectiveRP = optionsResponse.rpId ?? rpId
        let rpParameter: ArculusFidoParameter = optionsResponse.rpId == nil ? .rpId : .optionsRpId
        try check.rpID(effectiveRP, rpParameter)
        if let expected = optionsResponse.rpIdHash, [UInt8](expected) != SHA256.hash(Array(effectiveRP.utf8)) {
            throw check.refusal(.invalidOptions, .optionsRpIdHash, value: nil,
                                "is not SHA-256 of \(rpParameter, of: operation) \(ArculusFidoInputError.quoted(effectiveRP))")
        }
        let clientData: ClientDataJSON
        if let ready = optionsResponse.clientDataJSONbase64 {
            clientData = try Self.readyClientData(ready, rpID: effectiveRP, rpParameter, check: check, allowMismatch: allowRPIDMismatch)
            if let hash = optionsResponse.clienthash, [UInt8](hash) != clientData.hash {
                throw check.refusal(.invalidOptions, .optionsClientHash, value: nil, "is not SHA-256 of its clientDataJSON")
            }
        } else {
            guard let challenge = optionsResponse.challenge, let origin = optionsResponse.origin else {
                throw check.refusal(.invalidOptions, .optionsResponse, value: nil, "needs clientDataJSONbase64, or challenge and origin")
            }
            let challengeBytes = try check.challenge(challenge, .optionsChallenge)
            let webOrigin = try check.origin(origin, .optionsOrigin)
            try check.fit(effectiveRP, rpParameter, origin: webOrigin, .optionsOrigin, allowMismatch: allowRPIDMismatch)
            clientData = ClientDataJSON(type: "webauthn.get", challenge: challengeBytes, origin: webOrigin)
        }
        var allowed: [CredentialDescriptor] = []
        for id in optionsResponse.allowList { allowed.append(CredentialDescriptor(id: try check.credentialID(id, .optionsAllowList))) }
        let assertion = try await authenticate(operation, pin: pin, username: username, rpID: effectiveRP, clientDataHash: clientData.hash,
                                               allowList: allowed)
        return CardResponseJSON.authentication(assertion, clientData: clientData).text
    }

    /// ``authenticateCardOnly(pin:username:rpId:optionsResponse:allowRPIDMismatch:)`` with the
    /// challenge and origin given directly, like
    /// ``registerCardOnly(pin:username:displayName:rpId:challenge:origin:allowRPIDMismatch:)``.
    ///
    /// - Parameter allowCredentials: credential IDs (base64url) the server accepts; empty to use
    ///   `username`'s discoverable credential.
    public func authenticateCardOnly(pin: String, username: String, rpId: String, challenge: String, origin: String,
                                     allowCredentials: [String] = [],
                                     allowRPIDMismatch: Bool = false) async throws(ArculusFidoError) -> String {
        let operation = ArculusFidoOperation.authenticateCardOnly
        let check = InputCheck(operation: operation)
        let (challengeBytes, webOrigin) = try check.cardOnly(pin: pin, username: username, rpId: rpId, challenge: challenge,
                                                             origin: origin, allowMismatch: allowRPIDMismatch)
        var allowed: [CredentialDescriptor] = []
        for id in allowCredentials { allowed.append(CredentialDescriptor(id: try check.credentialID(id, .allowCredentials))) }
        let clientData = ClientDataJSON(type: "webauthn.get", challenge: challengeBytes, origin: webOrigin)
        let assertion = try await authenticate(operation, pin: pin, username: username, rpID: rpId, clientDataHash: clientData.hash,
                                               allowList: allowed)
        return CardResponseJSON.authentication(assertion, clientData: clientData).text
    }

    /// The card's part of an authentication, for `operation`, over checked values.
    func authenticate(_ operation: ArculusFidoOperation, pin: String, username: String, rpID: String, clientDataHash: [UInt8],
                      allowList: [CredentialDescriptor]) async throws(ArculusFidoError) -> AssertionResult {
        try await withCard(operation) { client, operation throws(ArculusFidoError) in
            try await CardOperations.authenticate(client, pin: pin, rpID: rpID, clientDataHash: clientDataHash,
                                                  allowList: allowList, username: username, operation)
        }
    }

    /// The samples' ready clientDataJSON: base64url of a `webauthn.get` clientData whose
    /// challenge and origin are acceptable and whose origin the RP ID fits.
    private static func readyClientData(_ text: String, rpID: String, _ rpParameter: ArculusFidoParameter, check: InputCheck,
                                        allowMismatch: Bool) throws(ArculusFidoError) -> ClientDataJSON {
        let parameter = ArculusFidoParameter.optionsClientDataJSON
        let (decoded, problem) = Base64URL.strictDecode(text)
        guard let bytes = decoded, !bytes.isEmpty else {
            throw check.refusal(.invalidOptions, parameter, value: text, "\(problem ?? "is empty; give base64url of the clientDataJSON")")
        }
        guard let json = try? JSONValue(parsing: Data(bytes)), json["type"]?.stringValue == "webauthn.get",
              let challenge = json["challenge"]?.stringValue, let originText = json["origin"]?.stringValue else {
            throw check.refusal(.invalidOptions, parameter, value: text,
                                "is not a clientDataJSON for an authentication: its JSON needs \"type\": \"webauthn.get\", a challenge and an origin")
        }
        let quotedOrigin = ArculusFidoInputError.quoted(originText)
        let (origin, originProblem) = WebOrigin.parse(originText)
        guard let origin else {
            throw check.refusal(.invalidOrigin, parameter, value: nil, "has the origin \(quotedOrigin), which \(originProblem ?? "is not an origin")")
        }
        let (challengeBytes, challengeProblem) = Base64URL.strictDecode(challenge)
        guard let challengeBytes, challengeBytes.count >= 16 else {
            throw check.refusal(.invalidChallenge, parameter, value: nil,
                                "has the challenge \(ArculusFidoInputError.quoted(challenge)), which \(challengeProblem ?? "is shorter than WebAuthn's 16 bytes")")
        }
        try check.fit(rpID, rpParameter, origin: origin, parameter, allowMismatch: allowMismatch)
        return ClientDataJSON(bytes: bytes)
    }
}
