import CTAPClient
import JSONSupport

extension ArculusFido {
    /// The backend-proxied registration, as the sample app runs it:
    ///
    /// 1. phase 1 at the backend (``ArculusBackendClient/registerBegin(username:displayName:rpId:)``):
    ///    the challenge, the RP ID the FIDO2 server expects (`fidoServerResponse.rp.id`), its
    ///    `user.id`, the attestation it asks for, the origin for clientDataJSON
    ///    (`fido2ServerOrigin`) and the server's session cookies;
    /// 2. phase 2 on the card, as
    ///    ``registerCardOnly(pin:username:displayName:rpId:challenge:origin:userId:allowRPIDMismatch:)``
    ///    with the server's `user.id` (and a `none` attestation when the server asked for none);
    /// 3. phase 3 at the backend with the card's response and the cookies.
    ///
    /// When phase 3 is refused, the credential is deleted from the card again (rollback) and the
    /// error says whether that worked. Returns the backend's phase 3 answer. The caller's values
    /// are checked before anything else (700 Invalid Input), the backend's before the card sees
    /// them (601, naming the backend's value).
    public func registerViaBackend(backend: ArculusBackendClient, pin: String, username: String, displayName: String,
                                   rpId: String, allowRPIDMismatch: Bool = false) async throws(ArculusFidoError) -> JSONValue {
        let operation = ArculusFidoOperation.registerViaBackend
        try Self.checkBackendInputs(operation, backend: backend, pin: pin, username: username, rpId: rpId)
        let name = displayName.isEmpty ? username : displayName
        let begin = try await backend.registerBegin(username: username, displayName: name, rpId: rpId, during: operation)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        let check = ServerCheck(operation: operation, source: "the backend's fidoServerResponse")
        let (challengeBytes, serverRP) = try check.signing(server, rpField: "rp.id", fallback: rpId, origin: origin,
                                                           originName: "fido2ServerOrigin", allowMismatch: allowRPIDMismatch)

        let handle = try server["user"]?["id"]?.stringValue.map { (text: String) throws(ArculusFidoError) in try check.userHandle(text) }
            ?? CardOperations.userHandle(for: username)
        let conveyance = try check.attestationConveyance(server["attestation"])
        let clientData = ClientDataJSON(type: "webauthn.create", challenge: challengeBytes, origin: origin)
        let user = UserEntity(id: handle, name: username, displayName: name)
        let made = try await register(operation, pin: pin, relyingParty: RelyingPartyEntity(id: serverRP, name: server["rp"]?["name"]?.stringValue ?? serverRP),
                                      user: user, clientData: clientData)
        let result = conveyance == "none" ? made.withNoneAttestation() : made
        let cardResponseData = CardResponseJSON.registration(result, clientData: clientData)

        let complete = try await backend.registerComplete(username: username, cardResponseData: cardResponseData, during: operation)
        if let refusal = Self.backendRefusal(complete) {
            var message: ArculusFidoMessage = "the backend refused the registration: \(refusal)"
            do {
                try await withCard(operation) { session throws(ArculusFidoError) in
                    try await session.perform { client, operation throws(ArculusFidoError) in
                        try CardOperations.delete(client, pin: pin, credentialID: result.credentialID, operation)
                    }
                }
                message = message + "; the new credential was deleted from the card again"
            } catch {
                message = message + " (Warning: Credential may still exist on card - rollback failed: \(error))"
            }
            throw ArculusFidoError(.unknown, during: operation, message, httpStatus: complete["httpStatus"]?.intValue)
        }
        return complete
    }

    /// The backend-proxied authentication: phase 1 at the backend (challenge, `rpId`,
    /// `allowCredentials`, `fido2ServerOrigin`, `sessionId`, cookies), phase 2 on the card as
    /// ``authenticateCardOnly(pin:username:rpId:optionsResponse:allowRPIDMismatch:)`` would sign,
    /// phase 3 at the backend. Returns the backend's phase 3 answer.
    public func authenticateViaBackend(backend: ArculusBackendClient, pin: String, username: String,
                                       rpId: String, allowRPIDMismatch: Bool = false) async throws(ArculusFidoError) -> JSONValue {
        let operation = ArculusFidoOperation.authenticateViaBackend
        try Self.checkBackendInputs(operation, backend: backend, pin: pin, username: username, rpId: rpId)
        let begin = try await backend.authenticateBegin(username: username, rpId: rpId, during: operation)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        let check = ServerCheck(operation: operation, source: "the backend's fidoServerResponse")
        let (challengeBytes, serverRP) = try check.signing(server, rpField: "rpId", fallback: rpId, origin: origin,
                                                           originName: "fido2ServerOrigin", allowMismatch: allowRPIDMismatch)
        let allowed = try check.credentials(server["allowCredentials"], field: "allowCredentials")

        let clientData = ClientDataJSON(type: "webauthn.get", challenge: challengeBytes, origin: origin)
        let assertion = try await authenticate(operation, pin: pin, username: username, rpID: serverRP, clientDataHash: clientData.hash,
                                               allowList: allowed)
        let cardResponseData = CardResponseJSON.authentication(assertion, clientData: clientData)
        let complete = try await backend.authenticateComplete(cardResponseData: cardResponseData, sessionId: begin["sessionId"]?.stringValue,
                                                              username: username, during: operation)
        if let refusal = Self.backendRefusal(complete) {
            throw ArculusFidoError(.unknown, during: operation, "the backend refused the authentication: \(refusal)",
                                   httpStatus: complete["httpStatus"]?.intValue)
        }
        return complete
    }

    /// The caller's values of a backend-proxied flow, checked before the backend is asked.
    private static func checkBackendInputs(_ operation: ArculusFidoOperation, backend: ArculusBackendClient, pin: String,
                                           username: String, rpId: String) throws(ArculusFidoError) {
        let check = InputCheck(operation: operation)
        try check.server(backend.baseUrl, .backend)
        try check.pin(pin)
        try check.username(username)
        try check.rpID(rpId)
    }

    /// The FIDO2 server's options and the origin from a phase 1 answer; a refusal is an error.
    private static func phaseOne(_ begin: JSONValue, operation: ArculusFidoOperation) throws(ArculusFidoError) -> (JSONValue, WebOrigin) {
        if let refusal = backendRefusal(begin) {
            let status = begin["httpStatus"]?.intValue
            let unknownUser = operation == .authenticateViaBackend && ServerCheck.isUnknownUser(refusal, status: status)
            throw ArculusFidoError(unknownUser ? .userNotFound : .unknown, during: operation, "the backend could not start: \(refusal)",
                                   httpStatus: status)
        }
        guard let server = begin["fidoServerResponse"] else {
            throw ArculusFidoError(.unknown, during: operation, "the backend's answer has no fidoServerResponse")
        }
        guard let originText = begin["fido2ServerOrigin"]?.stringValue else {
            throw ArculusFidoError(.unknown, during: operation, "the backend's answer has no fido2ServerOrigin (the origin for clientDataJSON)")
        }
        let origin = try ServerCheck(operation: operation, source: "the backend's phase 1 answer").origin(originText, field: "fido2ServerOrigin")
        return (server["publicKey"] ?? server, origin)
    }

    /// Why a backend answer is a refusal (`status` other than success, or an HTTP error), with
    /// the reason from wherever the servlet put it: `error` (the sample servlet's), `message` or
    /// `errorMessage` (what the sample app reads); nil for a success.
    private static func backendRefusal(_ answer: JSONValue) -> String? {
        let http = answer["httpStatus"]?.intValue ?? 200
        let status = answer["status"]?.stringValue
        guard status?.lowercased() != "success" || !(200..<300).contains(http) else { return nil }
        let reason = answer["error"]?.stringValue ?? answer["message"]?.stringValue ?? answer["errorMessage"]?.stringValue
            ?? "status \(status.map { "'\($0)'" } ?? "missing")"
        return (200..<300).contains(http) ? reason : "HTTP \(http): \(reason)"
    }
}
