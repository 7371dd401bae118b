import CardCrypto

/// PIN/UV auth protocol 1 (CTAP 2.1 §6.5.6), platform side.
///
/// - shared secret: SHA-256 of the ECDH x-coordinate;
/// - encrypt/decrypt: AES-256-CBC with an all-zero IV;
/// - authenticate: the first 16 bytes of HMAC-SHA-256.
public struct PINUVAuthProtocolOne: PlatformPINUVAuthProtocol {
    public let version = 1

    /// The protocol.
    public init() {}

    public func encapsulate(peer: COSEPublicKey) throws(CTAPClientError) -> (platformKey: COSEPublicKey, sharedSecret: [UInt8]) {
        let (platformKey, z) = try KeyAgreement.ecdh(with: peer)
        return (platformKey, SHA256.hash(z))
    }

    public func encrypt(key: [UInt8], plaintext: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        do {
            return try AES256CBC.encrypt(key: key, iv: Self.zeroIV, plaintext: plaintext)
        } catch {
            throw .invalidArgument("PIN/UV auth protocol 1 cannot encrypt: \(error)")
        }
    }

    public func decrypt(key: [UInt8], ciphertext: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        do {
            return try AES256CBC.decrypt(key: key, iv: Self.zeroIV, ciphertext: ciphertext)
        } catch {
            throw .malformedResponse("a protocol 1 ciphertext of \(ciphertext.count) bytes cannot be decrypted")
        }
    }

    public func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
    }

    private static let zeroIV = [UInt8](repeating: 0, count: 16)
}
