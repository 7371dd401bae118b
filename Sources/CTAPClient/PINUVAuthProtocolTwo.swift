import CardCrypto

/// PIN/UV auth protocol 2 (CTAP 2.1 §6.5.7), platform side.
///
/// - shared secret (64 bytes): HKDF-SHA-256 of the ECDH x-coordinate with a zero salt, info
///   "CTAP2 HMAC key" (first 32 bytes) and "CTAP2 AES key" (last 32);
/// - encrypt: AES-256-CBC under the AES key with a random IV, sent in front of the ciphertext;
/// - authenticate: full HMAC-SHA-256, keyed with the HMAC key of a shared secret, or with the
///   whole pinUvAuthToken.
public struct PINUVAuthProtocolTwo: PlatformPINUVAuthProtocol {
    public let version = 2

    /// The protocol.
    public init() {}

    public func encapsulate(peer: COSEPublicKey) throws(CTAPClientError) -> (platformKey: COSEPublicKey, sharedSecret: [UInt8]) {
        let (platformKey, z) = try KeyAgreement.ecdh(with: peer)
        let salt = [UInt8](repeating: 0, count: 32)
        let hmacKey = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
        let aesKey = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
        return (platformKey, hmacKey + aesKey)
    }

    public func encrypt(key: [UInt8], plaintext: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        let iv = SecureRandom.bytes(16)
        do {
            return iv + (try AES256CBC.encrypt(key: try aesKey(key), iv: iv, plaintext: plaintext))
        } catch let error as CTAPClientError {
            throw error
        } catch {
            throw .invalidArgument("PIN/UV auth protocol 2 cannot encrypt: \(error)")
        }
    }

    public func decrypt(key: [UInt8], ciphertext: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        guard ciphertext.count >= 16 else {
            throw .malformedResponse("a protocol 2 ciphertext of \(ciphertext.count) bytes has no IV")
        }
        do {
            return try AES256CBC.decrypt(key: try aesKey(key), iv: Array(ciphertext.prefix(16)),
                                         ciphertext: Array(ciphertext.dropFirst(16)))
        } catch let error as CTAPClientError {
            throw error
        } catch {
            throw .malformedResponse("a protocol 2 ciphertext of \(ciphertext.count) bytes cannot be decrypted")
        }
    }

    public func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // A 64-byte shared secret authenticates with its HMAC half; a token is used whole.
        HMACSHA256.authenticate(key: key.count == 64 ? Array(key.prefix(32)) : key, data: message)
    }

    private func aesKey(_ sharedSecret: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        guard sharedSecret.count == 64 else {
            throw .invalidArgument("a protocol 2 shared secret is 64 bytes, not \(sharedSecret.count)")
        }
        return Array(sharedSecret.suffix(32))
    }
}
