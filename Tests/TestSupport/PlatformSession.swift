import CBOR

/// The result of ``PlatformPIN/encapsulate(_:platformKey:)``: what the platform sends (its key)
/// and what it keeps (the shared secret).
public struct PlatformSession: Sendable {
    /// The protocol of the session.
    public let pinProtocol: PlatformPIN
    /// The platform's key-agreement key as a COSE_Key (what goes into keyAgreement).
    public let platformKey: CBORValue
    /// protocol one: SHA-256(Z); protocol two: HMAC key ‖ AES key.
    public let sharedSecret: [UInt8]

    /// A session of `pinProtocol` with these parts.
    public init(pinProtocol: PlatformPIN, platformKey: CBORValue, sharedSecret: [UInt8]) {
        self.pinProtocol = pinProtocol
        self.platformKey = platformKey
        self.sharedSecret = sharedSecret
    }

    /// `encrypt(sharedSecret, plaintext)`; `iv` is protocol two's (random when nil).
    public func encrypt(_ plaintext: [UInt8], iv: [UInt8]? = nil) throws -> [UInt8] {
        try pinProtocol.encrypt(key: sharedSecret, plaintext, iv: iv)
    }

    /// `decrypt(sharedSecret, ciphertext)`.
    public func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] { try pinProtocol.decrypt(key: sharedSecret, ciphertext) }

    /// `authenticate(sharedSecret, message)`.
    public func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: sharedSecret, message) }
}
