import CTAPClient
import FIDOWire
import JSONSupport

/// The client-direct flows: the app talks to a FIDO2 server that speaks the FIDO Alliance's
/// conformance server API (the vendor's `fidoapi/certify/…` endpoints have its shape), in the
/// members its text names:
///
/// | step | what the SDK sends | what it reads |
/// | --- | --- | --- |
/// | registration options | `username`, `displayName`, `authenticatorSelection`, `attestation` | `rp`, `user`, `challenge`, `pubKeyCredParams`, `excludeCredentials`, `attestation` |
/// | registration result | `id`, `type`, `response.{clientDataJSON, attestationObject}`, `getClientExtensionResults` (+ `registrationInfo` when given) | `status`, `errorMessage` |
/// | assertion options | `username`, `userVerification` | `challenge`, `rpId`, `allowCredentials` |
/// | assertion result | `id`, `type`, `response.{clientDataJSON, authenticatorData, signature, userHandle}`, `getClientExtensionResults` | `status`, `errorMessage` |
///
/// The server's session cookie is carried from options to result.
extension ArculusFido {
    /// The client-direct registration (see ``ArculusFidoThrowing/registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)``):
    /// the server's options first, then one tap of the card, then the result.
    func clientDirectRegistration(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                                  relyingParty: String?, resetDevice: Bool, registrationInfo: String?,
                                  allowRPIDMismatch: Bool, strictRP: Bool) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        let operation = ArculusFidoOperation.registerUser
        let (serverOrigin, http, begin) = try await Self.beginFlow(
            operation, fidoServer: fidoServer, pin: pin, newPIN: resetDevice, username: username, relyingParty: relyingParty,
            strictRP: strictRP, endpoint: fidoServer.registrationBeginEndpoint,
            request: fidoServer.creationOptionsRequest(username: username, displayName: displayName), what: "registration begin")
        let options = try Self.serverOptions(begin, what: "the registration options", operation: operation)
        let server = ServerCheck(operation: operation, source: "the FIDO2 server's registration options")
        let (challengeBytes, rpID) = try server.signing(options, rpField: "rp.id", fallback: relyingParty, strict: strictRP,
                                                        origin: serverOrigin, originName: "the server's origin", allowMismatch: allowRPIDMismatch)
        let rpName = options["rp"]?["name"]?.stringValue ?? rpID
        let userHandle = try options["user"]?["id"]?.stringValue.map { (text: String) throws(ArculusFidoError) in try server.userHandle(text) }
            ?? CardOperations.userHandle(for: username)
        let userName = options["user"]?["name"]?.stringValue ?? username
        let userDisplayName = options["user"]?["displayName"]?.stringValue ?? displayName
        let algorithms = options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.intValue } ?? [COSEPublicKey.es256]
        guard algorithms.contains(COSEPublicKey.es256) else {
            throw ArculusFidoError(.unknown, during: operation, "the server accepts algorithms \(algorithms); the card signs with ES256 (-7) only")
        }
        let excluded = try server.credentials(options["excludeCredentials"], field: "excludeCredentials")
        let conveyance = try server.attestationConveyance(options["attestation"])
        let clientData = ClientDataJSON(type: "webauthn.create", challenge: challengeBytes, origin: serverOrigin)

        let relyingPartyEntity = RelyingPartyEntity(id: rpID, name: rpName)
        let user = UserEntity(id: userHandle, name: userName, displayName: userDisplayName)
        let made = try await withCard(operation) { client, operation throws(ArculusFidoError) in
            if resetDevice { try await CardOperations.reset(client, newPIN: pin, operation) }
            return try await CardOperations.register(client, pin: pin, relyingParty: relyingPartyEntity, user: user,
                                                     clientData: clientData, excludeList: excluded, operation)
        }
        let result = conveyance == "none" ? made.withNoneAttestation() : made
        var body = CardResponseJSON.conformanceRegistration(result, clientData: clientData)
        if let registrationInfo { body["registrationInfo"] = .string(registrationInfo) }
        let complete = try await http.post(try fidoServer.url(fidoServer.registrationCompleteEndpoint, during: operation),
                                           .object(body), during: operation, what: "registration result")
        if let refusal = Self.refusal(complete) {
            let rollback = await rollBack(operation, pin: pin, credentialID: result.credentialID)
            throw ArculusFidoError(.unknown, during: operation, "the FIDO2 server refused the registration: \(refusal)" + rollback,
                                   httpStatus: complete.status)
        }
        return ArculusFidoServerResult(rpId: rpID, credentialId: Base64URL.encode(result.credentialID), serverResponse: complete.json,
                                       httpStatus: complete.status)
    }

    /// The client-direct authentication (see ``ArculusFidoThrowing/authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)``):
    /// the server's options first, then one tap of the card, then the result.
    func clientDirectAuthentication(fidoServer: ArculusFidoServer, pin: String, username: String, relyingParty: String?,
                                    allowRPIDMismatch: Bool, strictRP: Bool) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        let operation = ArculusFidoOperation.authenticateUser
        let (serverOrigin, http, begin) = try await Self.beginFlow(
            operation, fidoServer: fidoServer, pin: pin, newPIN: false, username: username, relyingParty: relyingParty,
            strictRP: strictRP, endpoint: fidoServer.authorizationBeginEndpoint,
            request: fidoServer.getOptionsRequest(username: username), what: "authentication begin")
        if let refusal = Self.refusal(begin) {
            throw ArculusFidoError(ServerCheck.isUnknownUser(refusal, status: begin.status) ? .userNotFound : .unknown, during: operation,
                                   "the FIDO2 server refused to start an authentication for '\(username)': \(refusal)",
                                   httpStatus: begin.status)
        }
        let options = try Self.serverOptions(begin, what: "the authentication options", operation: operation)
        let server = ServerCheck(operation: operation, source: "the FIDO2 server's authentication options")
        let (challengeBytes, rpID) = try server.signing(options, rpField: "rpId", fallback: relyingParty, strict: strictRP,
                                                        origin: serverOrigin, originName: "the server's origin", allowMismatch: allowRPIDMismatch)
        let allowed = try server.credentials(options["allowCredentials"], field: "allowCredentials")
        let clientData = ClientDataJSON(type: "webauthn.get", challenge: challengeBytes, origin: serverOrigin)
        let assertion = try await authenticate(operation, pin: pin, username: username, rpID: rpID, clientDataHash: clientData.hash,
                                               allowList: allowed)
        let body = CardResponseJSON.conformanceAuthentication(assertion, clientData: clientData)
        let complete = try await http.post(try fidoServer.url(fidoServer.authorizationCompleteEndpoint, during: operation),
                                           .object(body), during: operation, what: "authentication result")
        if let refusal = Self.refusal(complete) {
            throw ArculusFidoError(.unknown, during: operation, "the FIDO2 server refused the authentication: \(refusal)",
                                   httpStatus: complete.status)
        }
        return ArculusFidoServerResult(rpId: rpID, credentialId: Base64URL.encode(assertion.credential.id), serverResponse: complete.json,
                                       httpStatus: complete.status)
    }

    /// Deletes a credential the server refused, in a tap of its own (the card was released while
    /// the server was asked); what to add to the refusal's message.
    func rollBack(_ operation: ArculusFidoOperation, pin: String, credentialID: [UInt8]) async -> ArculusFidoMessage {
        do {
            try await withCard(operation) { client, operation throws(ArculusFidoError) in
                try await CardOperations.delete(client, pin: pin, credentialID: credentialID, operation)
            }
            return "; the new credential was deleted from the card again"
        } catch {
            return " (Warning: Credential may still exist on card - rollback failed: \(error))"
        }
    }

    /// A client-direct flow's first phase: the caller's values checked (``checkFlowInputs``),
    /// then `request` posted to the server's `endpoint`. The origin clientDataJSON gets, the
    /// exchange (which keeps the server's session cookie for the result) and the server's answer.
    private static func beginFlow(_ operation: ArculusFidoOperation, fidoServer: ArculusFidoServer, pin: String, newPIN: Bool,
                                  username: String, relyingParty: String?, strictRP: Bool, endpoint: String, request: JSONValue,
                                  what: String) async throws(ArculusFidoError) -> (WebOrigin, HTTPExchange, HTTPExchange.Answer) {
        let serverOrigin = try checkFlowInputs(operation, fidoServer: fidoServer, pin: pin, newPIN: newPIN,
                                               username: username, relyingParty: relyingParty, strictRP: strictRP)
        let http = HTTPExchange(timeout: fidoServer.timeout, address: fidoServer.domain)
        let answer = try await http.post(try fidoServer.url(endpoint, during: operation), request, during: operation, what: what)
        return (serverOrigin, http, answer)
    }

    /// The caller's values of a client-direct flow, checked before any server or the card is
    /// reached; the origin clientDataJSON gets (the server's own).
    private static func checkFlowInputs(_ operation: ArculusFidoOperation, fidoServer: ArculusFidoServer, pin: String, newPIN: Bool,
                                        username: String, relyingParty: String?, strictRP: Bool) throws(ArculusFidoError) -> WebOrigin {
        let check = InputCheck(operation: operation)
        try check.server(fidoServer.baseURL, .fidoServer)
        let (origin, problem) = WebOrigin.parse(fidoServer.origin)
        guard let origin else {
            throw check.refusal(.invalidServer, .fidoServer, value: fidoServer.domain,
                                "gives the origin \(ArculusFidoInputError.quoted(fidoServer.origin)), which \(problem ?? "is not an origin")")
        }
        try check.timeout(fidoServer.timeout, .fidoServerTimeout)
        try check.pin(pin, isNew: newPIN)
        try check.username(username)
        try check.relyingParty(relyingParty, .relyingParty, strict: strictRP)
        return origin
    }

    /// The options of a begin answer: the object itself, or its `publicKey` member (WebAuthn's
    /// CredentialCreationOptions shape); a refusal is an error.
    static func serverOptions(_ answer: HTTPExchange.Answer, what: String, operation: ArculusFidoOperation) throws(ArculusFidoError) -> JSONValue {
        if let refusal = refusal(answer) {
            throw ArculusFidoError(.unknown, during: operation, "the FIDO2 server refused \(what): \(refusal)", httpStatus: answer.status)
        }
        return answer.json["publicKey"] ?? answer.json
    }

    /// Why a server answer is a refusal, or nil when it is a success: an HTTP error, an empty
    /// body or one that is not a JSON object, `status` other than ok/success, or an `error`
    /// member; the reason from `errorMessage` (the conformance API's), `error` or `message`.
    static func refusal(_ answer: HTTPExchange.Answer) -> String? {
        let message = answer.json["errorMessage"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            ?? answer.json["error"]?.stringValue
            ?? answer.json["message"]?.stringValue
        guard answer.json.objectValue != nil else {
            if answer.text.allSatisfy(\.isWhitespace) { return "HTTP \(answer.status) with an empty body (no JSON)" }
            return "HTTP \(answer.status), not JSON: \(answer.text.prefix(200))"
        }
        if !(200..<300).contains(answer.status) {
            return "HTTP \(answer.status)" + (message.map { ": " + $0 } ?? "")
        }
        if let status = answer.json["status"]?.stringValue, !["ok", "success"].contains(status.lowercased()) {
            return "status \(status)" + (message.map { ": " + $0 } ?? "")
        }
        if answer.json["error"] != nil {
            return message ?? "error"
        }
        return nil
    }
}
