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
    /// The card signs for the RP ID the backend's answer names (`rpId` is sent in phase 1 and
    /// is the fallback when the answer names none), as the sample app does; with `strictRP` a
    /// backend that names another one is refused (702) and the card is not used. When phase 3 is
    /// refused, the credential is deleted from the card again (rollback) and the error says
    /// whether that worked. The caller's values are checked before anything else (700 Invalid
    /// Input), the backend's before the card sees them (601, naming the backend's value).
    public func registerViaBackend(backend: ArculusBackendClient, pin: String, username: String, displayName: String,
                                   rpId: String?, allowRPIDMismatch: Bool = false,
                                   strictRP: Bool = false) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        let operation = ArculusFidoOperation.registerViaBackend
        try Self.checkBackendInputs(operation, backend: backend, pin: pin, username: username, rpId: rpId, strictRP: strictRP)
        let name = displayName.isEmpty ? username : displayName
        let begin = try await backend.registerBegin(username: username, displayName: name, rpId: rpId, during: operation)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        let check = ServerCheck(operation: operation, source: "the backend's fidoServerResponse")
        let (challengeBytes, serverRP) = try check.signing(server, rpField: "rp.id", fallback: rpId, strict: strictRP, origin: origin,
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
            let rollback = await rollBack(operation, pin: pin, credentialID: result.credentialID)
            throw ArculusFidoError(.unknown, during: operation, "the backend refused the registration: \(refusal)" + rollback,
                                   httpStatus: complete["httpStatus"]?.intValue)
        }
        return Self.backendResult(complete, rpID: serverRP, credentialID: result.credentialID)
    }

    /// The backend-proxied authentication: phase 1 at the backend (challenge, `rpId`,
    /// `allowCredentials`, `fido2ServerOrigin`, `sessionId`, cookies), phase 2 on the card as
    /// ``authenticateCardOnly(pin:username:rpId:optionsResponse:allowRPIDMismatch:)`` would sign,
    /// phase 3 at the backend. The RP ID is the backend's, as for
    /// ``registerViaBackend(backend:pin:username:displayName:rpId:allowRPIDMismatch:strictRP:)``.
    public func authenticateViaBackend(backend: ArculusBackendClient, pin: String, username: String, rpId: String?,
                                       allowRPIDMismatch: Bool = false,
                                       strictRP: Bool = false) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        let operation = ArculusFidoOperation.authenticateViaBackend
        try Self.checkBackendInputs(operation, backend: backend, pin: pin, username: username, rpId: rpId, strictRP: strictRP)
        let begin = try await backend.authenticateBegin(username: username, rpId: rpId, during: operation)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        let check = ServerCheck(operation: operation, source: "the backend's fidoServerResponse")
        let (challengeBytes, serverRP) = try check.signing(server, rpField: "rpId", fallback: rpId, strict: strictRP, origin: origin,
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
        return Self.backendResult(complete, rpID: serverRP, credentialID: assertion.credential.id)
    }

    /// A backend's phase 3 answer as a flow's result: its `httpStatus` member (which the client
    /// adds) becomes the result's.
    private static func backendResult(_ complete: JSONValue, rpID: String, credentialID: [UInt8]) -> ArculusFidoServerResult {
        var answer = complete.objectValue ?? [:]
        let status = answer.removeValue(forKey: "httpStatus")?.intValue ?? 200
        return ArculusFidoServerResult(rpId: rpID, credentialId: Base64URL.encode(credentialID), serverResponse: .object(answer),
                                       httpStatus: status)
    }

    /// The caller's values of a backend-proxied flow, checked before the backend is asked.
    private static func checkBackendInputs(_ operation: ArculusFidoOperation, backend: ArculusBackendClient, pin: String,
                                           username: String, rpId: String?, strictRP: Bool) throws(ArculusFidoError) {
        let check = InputCheck(operation: operation)
        try check.server(backend.baseUrl, .backend)
        try check.timeout(backend.timeout, .backendTimeout)
        try check.pin(pin)
        try check.username(username)
        try check.relyingParty(rpId, .rpId, strict: strictRP)
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
