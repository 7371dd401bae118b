import CTAPClient
import FIDOWire
import JSONSupport

extension ArculusFido {
    /// The client-direct registration: the app talks to the FIDO2 server itself.
    ///
    /// 1. taps the card (SELECT, getInfo) and, with `resetDevice`, erases it and sets `pin`;
    /// 2. POSTs `{username, displayName}` to the server's registration begin endpoint;
    /// 3. the card makes a discoverable credential over the server's options (RP, user handle,
    ///    challenge, excluded credentials), with clientDataJSON for the server's origin;
    /// 4. POSTs the registration response (plus `username`, and `registrationInfo` when given) to
    ///    the complete endpoint, with the cookies of step 2 so the server finds its session.
    ///
    /// When the server refuses the result the new credential is deleted from the card again, so
    /// card and server stay in step. Returns the server's final answer (JSON text).
    public func registerUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                             relyingParty: String, resetDevice: Bool = false,
                             registrationInfo: String? = nil) async throws(ArculusFidoError) -> String {
        let operation = "registerUser"
        return try await withCard(operation) { session throws(ArculusFidoError) -> String in
            if resetDevice {
                try await session.perform { client, operation throws(ArculusFidoError) in
                    try CardOperations.reset(client, newPIN: pin, operation)
                }
            }
            let http = HTTPExchange(timeout: fidoServer.timeout)
            let begin = try await http.post(try fidoServer.url(fidoServer.registrationBeginEndpoint),
                                            .object(["username": .string(username), "displayName": .string(displayName)]),
                                            what: "\(operation) (registration begin)")
            let options = try Self.serverOptions(begin, what: "the registration options", operation: operation)
            guard let challenge = options["challenge"]?.stringValue else {
                throw ArculusFidoError(.unknown, "\(operation): the server's registration options have no challenge")
            }
            let rpID = options["rp"]?["id"]?.stringValue ?? relyingParty
            let rpName = options["rp"]?["name"]?.stringValue ?? rpID
            let userHandle = options["user"]?["id"]?.stringValue.flatMap(Base64URL.decode) ?? CardOperations.userHandle(for: username)
            let userName = options["user"]?["name"]?.stringValue ?? username
            let userDisplayName = options["user"]?["displayName"]?.stringValue ?? displayName
            let algorithms = options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.intValue } ?? [COSEPublicKey.es256]
            guard algorithms.contains(COSEPublicKey.es256) else {
                throw ArculusFidoError(.unknown, "\(operation): the server accepts algorithms \(algorithms); the card signs with ES256 (-7) only")
            }
            let excluded = (options["excludeCredentials"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue.flatMap(Base64URL.decode) }
                .map { CredentialDescriptor(id: $0) }
            let clientData = try ClientDataJSON.create(challenge: challenge, origin: fidoServer.origin)

            let result = try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.register(
                    client, pin: pin, relyingParty: RelyingPartyEntity(id: rpID, name: rpName),
                    user: UserEntity(id: userHandle, name: userName, displayName: userDisplayName),
                    clientData: clientData, excludeList: excluded, operation)
            }
            guard case .object(var body) = CardResponseJSON.registration(result, clientData: clientData) else {
                preconditionFailure("a registration response is an object")
            }
            body["username"] = .string(username)
            if let registrationInfo { body["registrationInfo"] = .string(registrationInfo) }
            let complete = try await http.post(try fidoServer.url(fidoServer.registrationCompleteEndpoint), .object(body),
                                               what: "\(operation) (registration result)")
            if let refusal = Self.refusal(complete) {
                let credentialID = result.credentialID
                var rollback = "; the new credential was deleted from the card again"
                do {
                    try await session.perform { client, operation throws(ArculusFidoError) in
                        try CardOperations.delete(client, pin: pin, credentialID: credentialID, operation)
                    }
                } catch {
                    rollback = " (Warning: Credential may still exist on card - rollback failed: \(error))"
                }
                throw ArculusFidoError(.unknown, "\(operation): the FIDO2 server refused the registration: \(refusal)" + rollback,
                                       httpStatus: complete.status)
            }
            return complete.text
        }
    }

    /// The client-direct authentication: taps the card, POSTs `{username, displayName}` to the
    /// authentication begin endpoint, lets the card sign the server's challenge over its allowed
    /// credentials (602 when the card holds none of them), and POSTs the authentication response
    /// (plus `username`) to the complete endpoint with the session cookies. Returns the server's
    /// final answer (JSON text).
    public func authenticateUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                                 relyingParty: String) async throws(ArculusFidoError) -> String {
        let operation = "authenticateUser"
        return try await withCard(operation) { session throws(ArculusFidoError) -> String in
            let http = HTTPExchange(timeout: fidoServer.timeout)
            let begin = try await http.post(try fidoServer.url(fidoServer.authorizationBeginEndpoint),
                                            .object(["username": .string(username), "displayName": .string(displayName)]),
                                            what: "\(operation) (authentication begin)")
            if let refusal = Self.refusal(begin) {
                let lowered = refusal.lowercased()
                let unknownUser = begin.status == 404 || ["not found", "does not exist", "unknown user", "no such user", "not registered"]
                    .contains { lowered.contains($0) }
                throw ArculusFidoError(unknownUser ? .userNotFound : .unknown,
                                       "\(operation): the FIDO2 server refused to start an authentication for '\(username)': \(refusal)",
                                       httpStatus: begin.status)
            }
            let options = try Self.serverOptions(begin, what: "the authentication options", operation: operation)
            guard let challenge = options["challenge"]?.stringValue else {
                throw ArculusFidoError(.unknown, "\(operation): the server's authentication options have no challenge")
            }
            let rpID = options["rpId"]?.stringValue ?? relyingParty
            let allowed = (options["allowCredentials"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue.flatMap(Base64URL.decode) }
                .map { CredentialDescriptor(id: $0) }
            let clientData = try ClientDataJSON.get(challenge: challenge, origin: fidoServer.origin)
            let assertion = try await session.perform { client, operation throws(ArculusFidoError) in
                try CardOperations.authenticate(client, pin: pin, rpID: rpID, clientDataHash: clientData.hash,
                                                allowList: allowed, username: username, operation)
            }
            guard case .object(var body) = CardResponseJSON.authentication(assertion, clientData: clientData) else {
                preconditionFailure("an authentication response is an object")
            }
            body["username"] = .string(username)
            let complete = try await http.post(try fidoServer.url(fidoServer.authorizationCompleteEndpoint), .object(body),
                                               what: "\(operation) (authentication result)")
            if let refusal = Self.refusal(complete) {
                throw ArculusFidoError(.unknown, "\(operation): the FIDO2 server refused the authentication: \(refusal)",
                                       httpStatus: complete.status)
            }
            return complete.text
        }
    }

    /// The options of a begin answer: the object itself, or its `publicKey` member (WebAuthn's
    /// CredentialCreationOptions shape); a refusal is an error.
    static func serverOptions(_ answer: HTTPExchange.Answer, what: String, operation: String) throws(ArculusFidoError) -> JSONValue {
        if let refusal = refusal(answer) {
            throw ArculusFidoError(.unknown, "\(operation): the FIDO2 server refused \(what): \(refusal)", httpStatus: answer.status)
        }
        return answer.json["publicKey"] ?? answer.json
    }

    /// Why a server or backend answer is a refusal, or nil when it is a success: an HTTP error, a
    /// body that is not a JSON object, `status` other than ok/success, or an `error` member.
    static func refusal(_ answer: HTTPExchange.Answer) -> String? {
        let message = answer.json["errorMessage"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            ?? answer.json["error"]?.stringValue
            ?? answer.json["message"]?.stringValue
        guard answer.json.objectValue != nil else {
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
