import CBOR
import CardCrypto

/// PIN/UV auth protocols one and two, PLATFORM side, written from CTAP 2.1 §6.5.6 and §6.5.7 for
/// the card-side tests and the fuzz harnesses.
///
/// Independent of what it tests, on purpose: it never calls the card's PIN code (CTAP2), the
/// host-side client (CTAPClient), the COSE codec or FIDOWire, and reads and writes COSE keys
/// itself, so a card that agrees with it agrees with the specification rather than with a copy of
/// its own code. Only CBOR and CardCrypto's primitives (ECDH, SHA-256, HKDF, AES, HMAC) are shared.
public enum PlatformPIN: Int, CaseIterable, Sendable {
    /// PIN/UV auth protocol one (§6.5.6).
    case one = 1
    /// PIN/UV auth protocol two (§6.5.7).
    case two = 2

    /// Length of `authenticate` output: LEFT(HMAC, 16) for one, the whole HMAC for two.
    public var authenticatorOutputLength: Int { self == .one ? 16 : 32 }

    /// `encapsulate(peerCoseKey)`: ECDH of the platform's key pair (a fresh one unless
    /// `platformKey` is given) with the authenticator's key-agreement key, then the protocol's KDF.
    public func encapsulate(_ authenticatorKey: CBORValue, platformKey: P256PrivateKey? = nil) throws -> PlatformSession {
        try session(platformKey: platformKey ?? P256PrivateKey(), cardKey: Self.keyAgreementPublicKey(authenticatorKey))
    }

    /// The session of `platformKey` with the card's key-agreement key.
    public func session(platformKey: P256PrivateKey, cardKey: P256PublicKey) throws -> PlatformSession {
        PlatformSession(pinProtocol: self, platformKey: Self.coseKeyAgreement(platformKey.publicKey),
                        sharedSecret: kdf(try platformKey.sharedSecret(with: cardKey)))
    }

    /// protocol one: SHA-256(Z); protocol two: HKDF-SHA-256(salt = 32 zero bytes) with the
    /// infos "CTAP2 HMAC key" and "CTAP2 AES key", concatenated (HMAC key first).
    public func kdf(_ z: [UInt8]) -> [UInt8] {
        switch self {
        case .one:
            return SHA256.hash(z)
        case .two:
            let salt = [UInt8](repeating: 0, count: 32)
            return HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
                + HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
        }
    }

    /// protocol one: AES-256-CBC with a zero IV; protocol two: IV ‖ AES-256-CBC under the AES half
    /// of the key, the IV random unless `iv` is given (for runs that must repeat byte for byte).
    public func encrypt(key: [UInt8], _ plaintext: [UInt8], iv: [UInt8]? = nil) throws -> [UInt8] {
        switch self {
        case .one:
            return try AES256CBC.encrypt(key: key, iv: [UInt8](repeating: 0, count: 16), plaintext: plaintext)
        case .two:
            let iv = iv ?? SecureRandom.bytes(16)
            return iv + (try AES256CBC.encrypt(key: Self.aesKey(key), iv: iv, plaintext: plaintext))
        }
    }

    /// The inverse of `encrypt`; a protocol two ciphertext must hold more than its IV.
    public func decrypt(key: [UInt8], _ ciphertext: [UInt8]) throws -> [UInt8] {
        switch self {
        case .one:
            return try AES256CBC.decrypt(key: key, iv: [UInt8](repeating: 0, count: 16), ciphertext: ciphertext)
        case .two:
            guard ciphertext.count > 16 else { throw TestFailure("a protocol 2 ciphertext of \(ciphertext.count) bytes has nothing after its IV") }
            return try AES256CBC.decrypt(key: Self.aesKey(key), iv: Array(ciphertext[0..<16]), ciphertext: Array(ciphertext[16...]))
        }
    }

    /// protocol one: LEFT(HMAC-SHA-256(key, message), 16); protocol two: HMAC-SHA-256 keyed with
    /// the first 32 bytes of `key` (the HMAC half of a shared secret, or a whole 32-byte token).
    public func authenticate(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        switch self {
        case .one:
            return Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
        case .two:
            return HMACSHA256.authenticate(key: Array(key.prefix(32)), data: message)
        }
    }

    private static func aesKey(_ key: [UInt8]) -> [UInt8] { key.count == 64 ? Array(key[32...]) : key }

    /// Checks and parses the authenticator's key-agreement key: exactly
    /// {1: 2, 3: -25, -1: 1, -2: x, -3: y} with 32-byte coordinates.
    public static func keyAgreementPublicKey(_ value: CBORValue) throws -> P256PublicKey {
        guard let map = value.mapValue else { throw TestFailure("key agreement key is not a map: \(value)") }
        guard map.count == 5, map[int: 1] == .int(2), map[int: 3] == .int(-25), map[int: -1] == .int(1),
              let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue, x.count == 32, y.count == 32 else {
            throw TestFailure("not a P-256 ECDH-ES+HKDF-256 COSE key: \(value)")
        }
        return try P256PublicKey(x: x, y: y)
    }

    /// The platform's key-agreement key as CTAP sends it: {1: 2, 3: -25, -1: 1, -2: x, -3: y}.
    public static func coseKeyAgreement(_ key: P256PublicKey) -> CBORValue {
        .map([.int(1): .int(2), .int(3): .int(-25), .int(-1): .int(1), .int(-2): .bytes(key.x), .int(-3): .bytes(key.y)])
    }
}
