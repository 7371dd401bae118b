/// A pinUvAuthToken the card issued (CTAP 2.1 §6.5.2), with the protocol to use it with and what it
/// was asked for.
public struct PINUVAuthToken: Sendable {
    /// The decrypted token.
    public let value: [UInt8]
    /// The protocol the token was obtained with; its `authenticate` makes pinUvAuthParams.
    public let pinProtocol: any PlatformPINUVAuthProtocol
    /// The permissions asked for (all of mc and ga from a getPinToken card).
    public let permissions: TokenPermissions
    /// The RP ID the token is bound to, if any.
    public let rpID: String?

    /// A token as the card issued it.
    public init(value: [UInt8], pinProtocol: any PlatformPINUVAuthProtocol, permissions: TokenPermissions, rpID: String?) {
        self.value = value
        self.pinProtocol = pinProtocol
        self.permissions = permissions
        self.rpID = rpID
    }

    /// pinUvAuthParam over `message`.
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        pinProtocol.authenticate(key: value, message: message)
    }
}
