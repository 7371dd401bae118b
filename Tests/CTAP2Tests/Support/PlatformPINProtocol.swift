import CBOR
import CardCrypto
import Testing
import FIDOWire

/// PIN/UV auth protocols one and two, PLATFORM side, written from CTAP 2.1 §6.5.6 and §6.5.7
/// independently of the authenticator's own implementation (which the tests never call).
enum PlatformPIN: Int, CaseIterable, Sendable, CustomTestStringConvertible {
    case one = 1
    case two = 2

    var testDescription: String { "PIN/UV auth protocol \(rawValue)" }

    /// Length of `authenticate` output: LEFT(HMAC, 16) for one, the whole HMAC for two.
    var authenticatorOutputLength: Int { self == .one ? 16 : 32 }

    /// `encapsulate(peerCoseKey)`: a fresh platform key pair, ECDH with the authenticator's
    /// key-agreement key, then the protocol's KDF.
    func encapsulate(_ authenticatorKey: CBORValue) throws -> PlatformSession {
        let peer = try Self.keyAgreementPublicKey(authenticatorKey)
        let platformKey = try P256PrivateKey()
        let z = try platformKey.sharedSecret(with: peer)
        return PlatformSession(pinProtocol: self, platformKeyAgreement: Self.coseKeyAgreement(platformKey.publicKey),
                               sharedSecret: kdf(z))
    }

    /// protocol one: SHA-256(Z); protocol two: HKDF-SHA-256(salt = 32 zero bytes) with the
    /// infos "CTAP2 HMAC key" and "CTAP2 AES key", concatenated (HMAC key first).
    func kdf(_ z: [UInt8]) -> [UInt8] {
        switch self {
        case .one:
            return SHA256.hash(z)
        case .two:
            let salt = [UInt8](repeating: 0, count: 32)
            return HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
                + HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
        }
    }

    /// protocol one: AES-256-CBC with a zero IV; protocol two: random IV ‖ AES-256-CBC under the
    /// AES half of the key.
    func encrypt(key: [UInt8], _ plaintext: [UInt8]) throws -> [UInt8] {
        switch self {
        case .one:
            return try AES256CBC.encrypt(key: key, iv: [UInt8](repeating: 0, count: 16), plaintext: plaintext)
        case .two:
            let iv = SecureRandom.bytes(16)
            return iv + (try AES256CBC.encrypt(key: Self.aesKey(key), iv: iv, plaintext: plaintext))
        }
    }

    func decrypt(key: [UInt8], _ ciphertext: [UInt8]) throws -> [UInt8] {
        switch self {
        case .one:
            return try AES256CBC.decrypt(key: key, iv: [UInt8](repeating: 0, count: 16), ciphertext: ciphertext)
        case .two:
            guard ciphertext.count >= 16 else { throw TestFailure("protocol 2 ciphertext shorter than its IV") }
            return try AES256CBC.decrypt(key: Self.aesKey(key), iv: Array(ciphertext[0..<16]),
                                         ciphertext: Array(ciphertext[16...]))
        }
    }

    /// protocol one: LEFT(HMAC-SHA-256(key, message), 16); protocol two: HMAC-SHA-256 keyed with
    /// the first 32 bytes of `key` (the HMAC half of a shared secret, or a whole 32-byte token).
    func authenticate(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        switch self {
        case .one:
            return Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
        case .two:
            return HMACSHA256.authenticate(key: Array(key.prefix(32)), data: message)
        }
    }

    private static func aesKey(_ key: [UInt8]) -> [UInt8] { key.count == 64 ? Array(key[32...]) : key }

    /// Checks and parses the authenticator's key-agreement key: {1: 2, 3: -25, -1: 1, -2: x, -3: y}.
    static func keyAgreementPublicKey(_ value: CBORValue) throws -> P256PublicKey {
        guard let map = value.mapValue else { throw TestFailure("key agreement key is not a map: \(value)") }
        guard map.count == 5, map[int: 1] == .int(2), map[int: 3] == .int(-25), map[int: -1] == .int(1),
              let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue, x.count == 32, y.count == 32 else {
            throw TestFailure("not a P-256 ECDH-ES+HKDF-256 COSE key: \(value)")
        }
        return try P256PublicKey(x: x, y: y)
    }

    static func coseKeyAgreement(_ key: P256PublicKey) -> CBORValue {
        .map([.int(1): .int(2), .int(3): .int(-25), .int(-1): .int(1), .int(-2): .bytes(key.x), .int(-3): .bytes(key.y)])
    }
}

/// The result of `encapsulate`: what the platform sends (its key) and what it keeps (the secret).
struct PlatformSession {
    let pinProtocol: PlatformPIN
    let platformKeyAgreement: CBORValue
    let sharedSecret: [UInt8]

    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] { try pinProtocol.encrypt(key: sharedSecret, plaintext) }
    func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] { try pinProtocol.decrypt(key: sharedSecret, ciphertext) }
    func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: sharedSecret, message) }
}

/// A pinUvAuthToken the platform obtained, with the protocol it belongs to.
struct PlatformToken {
    let pinProtocol: PlatformPIN
    let value: [UInt8]

    func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: value, message) }
}

/// The 64-byte zero-padded PIN block of setPIN/changePIN.
func paddedPIN(_ pin: String) -> [UInt8] {
    let bytes = Array(pin.utf8)
    return bytes + [UInt8](repeating: 0, count: max(0, 64 - bytes.count))
}

/// LEFT(SHA-256(pin), 16).
func pinHash(_ pin: String) -> [UInt8] {
    Array(SHA256.hash(Array(pin.utf8)).prefix(16))
}
