import CTAPClient
import JSONSupport

extension ArculusFido {
    /// The backend-proxied registration, as the sample app runs it:
    ///
    /// 1. phase 1 at the backend (``ArculusBackendClient/registerBegin(username:displayName:rpId:)``):
    ///    the challenge, the RP ID the FIDO2 server expects (`fidoServerResponse.rp.id`), the
    ///    origin for clientDataJSON (`fido2ServerOrigin`) and the server's session cookies;
    /// 2. phase 2 on the card: ``registerCardOnly(pin:username:displayName:rpId:challenge:origin:)``;
    /// 3. phase 3 at the backend with the card's response and the cookies.
    ///
    /// When phase 3 is refused, the credential is deleted from the card again (rollback) and the
    /// error says whether that worked. Returns the backend's phase 3 answer.
    public func registerViaBackend(backend: ArculusBackendClient, pin: String, username: String, displayName: String,
                                   rpId: String) async throws(ArculusFidoError) -> JSONValue {
        let operation = "registerViaBackend"
        let name = displayName.isEmpty ? username : displayName
        let begin = try await backend.registerBegin(username: username, displayName: name, rpId: rpId)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        guard let challenge = server["challenge"]?.stringValue else {
            throw ArculusFidoError(.unknown, "\(operation): the backend's answer has no fidoServerResponse.challenge")
        }
        let serverRP = server["rp"]?["id"]?.stringValue ?? rpId

        let cardResponse = try await registerCardOnly(pin: pin, username: username, displayName: name, rpId: serverRP,
                                                      challenge: challenge, origin: origin)
        let cardResponseData: JSONValue
        do {
            cardResponseData = try JSONValue(parsing: cardResponse)
        } catch {
            preconditionFailure("registerCardOnly returns JSON")
        }
        let credentialID = cardResponseData["id"]?.stringValue

        let complete = try await backend.registerComplete(username: username, cardResponseData: cardResponseData)
        if let refusal = Self.backendRefusal(complete) {
            var message = "\(operation): the backend refused the registration: \(refusal)"
            if let credentialID {
                do {
                    try await deleteCredentialByCredentialId(pin: pin, credentialId: credentialID)
                    message += "; the new credential was deleted from the card again"
                } catch {
                    message += " (Warning: Credential may still exist on card - rollback failed: \(error))"
                }
            }
            throw ArculusFidoError(.unknown, message, httpStatus: complete["httpStatus"]?.intValue)
        }
        return complete
    }

    /// The backend-proxied authentication: phase 1 at the backend (challenge, `rpId`,
    /// `allowCredentials`, `fido2ServerOrigin`, `sessionId`, cookies), phase 2 on the card with
    /// ``authenticateCardOnly(pin:username:rpId:optionsResponse:)``, phase 3 at the backend.
    /// Returns the backend's phase 3 answer.
    public func authenticateViaBackend(backend: ArculusBackendClient, pin: String, username: String,
                                       rpId: String) async throws(ArculusFidoError) -> JSONValue {
        let operation = "authenticateViaBackend"
        let begin = try await backend.authenticateBegin(username: username, rpId: rpId)
        let (server, origin) = try Self.phaseOne(begin, operation: operation)
        guard let challenge = server["challenge"]?.stringValue else {
            throw ArculusFidoError(.unknown, "\(operation): the backend's answer has no fidoServerResponse.challenge")
        }
        let options = ArculusFidoOptionsAuthorizationResponse()
        options.challenge = challenge
        options.rpId = server["rpId"]?.stringValue ?? rpId
        options.origin = origin
        options.allowList = (server["allowCredentials"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }

        let cardResponse = try await authenticateCardOnly(pin: pin, username: username, rpId: options.rpId ?? rpId,
                                                          optionsResponse: options)
        let cardResponseData: JSONValue
        do {
            cardResponseData = try JSONValue(parsing: cardResponse)
        } catch {
            preconditionFailure("authenticateCardOnly returns JSON")
        }
        let complete = try await backend.authenticateComplete(cardResponseData: cardResponseData,
                                                              sessionId: begin["sessionId"]?.stringValue, username: username)
        if let refusal = Self.backendRefusal(complete) {
            throw ArculusFidoError(.unknown, "\(operation): the backend refused the authentication: \(refusal)",
                                   httpStatus: complete["httpStatus"]?.intValue)
        }
        return complete
    }

    /// The FIDO2 server's options and the origin from a phase 1 answer; a refusal is an error.
    private static func phaseOne(_ begin: JSONValue, operation: String) throws(ArculusFidoError) -> (JSONValue, String) {
        if let refusal = backendRefusal(begin) {
            throw ArculusFidoError(.unknown, "\(operation): the backend could not start: \(refusal)",
                                   httpStatus: begin["httpStatus"]?.intValue)
        }
        guard let server = begin["fidoServerResponse"] else {
            throw ArculusFidoError(.unknown, "\(operation): the backend's answer has no fidoServerResponse")
        }
        guard let origin = begin["fido2ServerOrigin"]?.stringValue else {
            throw ArculusFidoError(.unknown, "\(operation): Backend response missing fido2ServerOrigin")
        }
        return (server["publicKey"] ?? server, origin)
    }

    /// Why a backend answer is a refusal (`status` other than success; the message from
    /// `message`, `errorMessage` or `error`), or nil.
    private static func backendRefusal(_ answer: JSONValue) -> String? {
        guard answer["status"]?.stringValue?.lowercased() != "success" else { return nil }
        return answer["error"]?.stringValue ?? answer["message"]?.stringValue ?? answer["errorMessage"]?.stringValue
            ?? "status \(answer["status"]?.stringValue ?? "missing")"
    }
}
