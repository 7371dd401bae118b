import CBOR
import COSE
import CardCrypto
import FIDOWire

/// PIN/UV auth protocols one and two, authenticator side (CTAP 2.1 §6.5.6 and §6.5.7).
///
/// Both derive a shared secret from ECDH with the card's key-agreement key; they differ in the
/// KDF, in how encryption handles the IV, and in the MAC length.
public enum PINUVAuthProtocol: Int, Sendable, CaseIterable {
    case one = 1
    case two = 2

    /// The shared secret for the platform's key-agreement key (`decapsulate`).
    func sharedSecret(privateKey: P256PrivateKey, platformKey: CBORValue) throws(CTAPStatus) -> [UInt8] {
        let peer = try Self.platformPublicKey(platformKey)
        let z: [UInt8]
        do {
            z = try privateKey.sharedSecret(with: peer)
        } catch {
            throw .invalidParameter
        }
        switch self {
        case .one:
            return SHA256.hash(z)
        case .two:
            let salt = [UInt8](repeating: 0, count: 32)
            let hmacKey = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
            let aesKey = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
            return hmacKey + aesKey
        }
    }

    /// `encrypt(key, demPlaintext)`; `iv` is only used by protocol two.
    func encrypt(key: [UInt8], plaintext: [UInt8], iv: [UInt8]) -> [UInt8] {
        do {
            switch self {
            case .one:
                return try AES256CBC.encrypt(key: key, iv: [UInt8](repeating: 0, count: 16), plaintext: plaintext)
            case .two:
                return iv + (try AES256CBC.encrypt(key: aesKey(key), iv: iv, plaintext: plaintext))
            }
        } catch {
            preconditionFailure("encryption of a block-aligned plaintext failed: \(error)")
        }
    }

    /// `decrypt(key, demCiphertext)`: a ciphertext of the wrong shape is an error.
    func decrypt(key: [UInt8], ciphertext: [UInt8]) -> [UInt8]? {
        switch self {
        case .one:
            guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { return nil }
            return try? AES256CBC.decrypt(key: key, iv: [UInt8](repeating: 0, count: 16), ciphertext: ciphertext)
        case .two:
            guard ciphertext.count > 16, ciphertext.count % 16 == 0 else { return nil }
            return try? AES256CBC.decrypt(key: aesKey(key), iv: Array(ciphertext[0..<16]), ciphertext: Array(ciphertext[16...]))
        }
    }

    /// `authenticate(key, message)`: 16 bytes for protocol one, 32 for two.
    func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        switch self {
        case .one:
            return Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
        case .two:
            return HMACSHA256.authenticate(key: hmacKey(key), data: message)
        }
    }

    /// `verify(key, message, signature)`, comparing in constant time.
    func verify(key: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        let expectedLength = self == .one ? 16 : 32
        guard signature.count == expectedLength else { return false }
        return ConstantTime.equals(authenticate(key: key, message: message), signature)
    }

    /// The platform's key-agreement key: a value that is not a map is
    /// CTAP2_ERR_CBOR_UNEXPECTED_TYPE, any other key than an EC2 P-256 one CTAP1_ERR_INVALID_PARAMETER.
    private static func platformPublicKey(_ value: CBORValue) throws(CTAPStatus) -> P256PublicKey {
        do throws(COSEKeyError) {
            return try COSEPublicKey(cbor: value).publicKey
        } catch {
            throw error == .notAMap ? .cborUnexpectedType : .invalidParameter
        }
    }

    /// Protocol two keys are HMAC key ‖ AES key; a 32-byte pinUvAuthToken is used whole for HMAC.
    private func hmacKey(_ key: [UInt8]) -> [UInt8] { key.count == 64 ? Array(key[0..<32]) : key }
    private func aesKey(_ key: [UInt8]) -> [UInt8] { key.count == 64 ? Array(key[32..<64]) : key }
}
