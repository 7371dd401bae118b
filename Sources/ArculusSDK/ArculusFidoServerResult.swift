import JSONSupport

/// What a flow ended with: the RP ID the card signed for, the credential the card used or made,
/// and the server's final answer (the client-direct ``ArculusFidoThrowing/registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)``
/// and ``ArculusFidoThrowing/authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)``,
/// the backend-proxied ``ArculusFido/registerViaBackend(backend:pin:username:displayName:rpId:allowRPIDMismatch:strictRP:)``
/// and ``ArculusFido/authenticateViaBackend(backend:pin:username:rpId:allowRPIDMismatch:strictRP:)``).
public struct ArculusFidoServerResult: Equatable, Sendable {
    /// The RP ID the card signed for: the one the FIDO2 server or backend named, else the
    /// caller's. Without strict RP mode a server decides it, so an app that must sign only for
    /// its own RP checks it (or passes `strictRP: true`).
    public let rpId: String
    /// The credential ID, base64url (the `id` the server got).
    public let credentialId: String
    /// The server's (or backend's) answer to the result request, e.g. `{"status": "ok", "errorMessage": ""}`.
    public let serverResponse: JSONValue
    /// The HTTP status of that answer.
    public let httpStatus: Int

    /// A result, e.g. for an app's tests of its own handling.
    public init(rpId: String, credentialId: String, serverResponse: JSONValue, httpStatus: Int) {
        self.rpId = rpId
        self.credentialId = credentialId
        self.serverResponse = serverResponse
        self.httpStatus = httpStatus
    }
}
