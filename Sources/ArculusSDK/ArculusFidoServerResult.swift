import JSONSupport

/// What a client-direct flow ended with: the credential the card used or made, and the FIDO2
/// server's final answer (``ArculusFidoThrowing/registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:)``,
/// ``ArculusFidoThrowing/authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:)``).
public struct ArculusFidoServerResult: Equatable, Sendable {
    /// The credential ID, base64url (the `id` the server got).
    public let credentialId: String
    /// The server's answer to the result request, e.g. `{"status": "ok", "errorMessage": ""}`.
    public let serverResponse: JSONValue
    /// The HTTP status of that answer.
    public let httpStatus: Int
}
