/// A pinUvAuthToken the platform obtained, with the protocol it belongs to.
public struct PlatformToken: Sendable {
    /// The protocol the token was obtained with.
    public let pinProtocol: PlatformPIN
    /// The decrypted token.
    public let value: [UInt8]

    /// A token of `pinProtocol`.
    public init(pinProtocol: PlatformPIN, value: [UInt8]) {
        self.pinProtocol = pinProtocol
        self.value = value
    }

    /// pinUvAuthParam over `message`: `authenticate(token, message)`.
    public func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: value, message) }
}
