import CBOR
import CardCrypto
import FIDOWire

// The host side of CTAP 2.1 for the robustness tests and the fuzz harnesses (Tests/Fuzz/build.sh
// compiles this file into the ctap2 and card targets too, so it imports neither Testing nor the
// card modules). Written from CTAP 2.1 §6.5.6/§6.5.7 (PIN/UV auth protocols, platform side);
// it never calls the authenticator's own PIN code. Every random value is derived from a
// counter, so a run (and a fuzz input) is reproducible.

/// A failure of the platform side: the card answered something the flow cannot continue from.
struct PlatformFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One CTAP2 response: status byte + CBOR body.
struct CTAPReply: CustomStringConvertible {
    let bytes: [UInt8]

    /// The status byte (CTAP 2.1 §8.2); 0xFF for an empty response (never valid).
    var status: UInt8 { bytes.first ?? 0xFF }
    var isOK: Bool { status == 0x00 }

    /// The body map of a response, or nil when absent or not a map.
    var map: CBORMap? {
        guard bytes.count > 1, let value = try? CBORDecoder.decode(Array(bytes.dropFirst())) else { return nil }
        return value.mapValue
    }

    var description: String { "status 0x" + String(status, radix: 16) + " (\(bytes.count) bytes)" }
}

/// The shared secret of one PIN/UV auth protocol session and what the platform sends with it.
struct PlatformPINSession {
    /// 1 or 2.
    let pinProtocol: Int
    /// The platform's key-agreement key as a COSE_Key (what goes into keyAgreement, 0x03).
    let platformKey: CBORValue
    /// protocol 1: SHA-256(Z); protocol 2: HMAC key ‖ AES key (HKDF-SHA-256).
    let sharedSecret: [UInt8]

    /// `encrypt(key, plaintext)` with the session key; `iv` is used by protocol 2 only.
    func encrypt(_ plaintext: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        try Self.encrypt(pinProtocol, key: sharedSecret, plaintext, iv: iv)
    }

    func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] {
        switch pinProtocol {
        case 1:
            return try AES256CBC.decrypt(key: sharedSecret, iv: [UInt8](repeating: 0, count: 16), ciphertext: ciphertext)
        default:
            guard ciphertext.count > 16 else { throw PlatformFailure("protocol 2 ciphertext without IV") }
            return try AES256CBC.decrypt(key: Array(sharedSecret[32...]), iv: Array(ciphertext[..<16]),
                                         ciphertext: Array(ciphertext[16...]))
        }
    }

    /// `authenticate(sharedSecret, message)`.
    func authenticate(_ message: [UInt8]) -> [UInt8] {
        Self.authenticate(pinProtocol, key: sharedSecret, message)
    }

    static func encrypt(_ pinProtocol: Int, key: [UInt8], _ plaintext: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        switch pinProtocol {
        case 1:
            return try AES256CBC.encrypt(key: key, iv: [UInt8](repeating: 0, count: 16), plaintext: plaintext)
        default:
            return iv + (try AES256CBC.encrypt(key: Array(key[32...]), iv: iv, plaintext: plaintext))
        }
    }

    /// protocol 1: LEFT(HMAC-SHA-256(key, m), 16); protocol 2: HMAC-SHA-256 with the first 32
    /// bytes of the key (the HMAC half of a shared secret, or a whole token).
    static func authenticate(_ pinProtocol: Int, key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        pinProtocol == 1
            ? Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
            : HMACSHA256.authenticate(key: Array(key.prefix(32)), data: message)
    }
}

/// A pinUvAuthToken and the protocol it was obtained with.
struct PlatformToken {
    let pinProtocol: Int
    let value: [UInt8]

    /// pinUvAuthParam over `message`.
    func authenticate(_ message: [UInt8]) -> [UInt8] {
        PlatformPINSession.authenticate(pinProtocol, key: value, message)
    }
}

/// CTAP 2.1 command bytes and permission bits, numbered from the specification (not taken from
/// the implementation's enums, so a renumbering there is caught).
enum CTAPByte {
    static let makeCredential: UInt8 = 0x01
    static let getAssertion: UInt8 = 0x02
    static let getInfo: UInt8 = 0x04
    static let clientPIN: UInt8 = 0x06
    static let reset: UInt8 = 0x07
    static let getNextAssertion: UInt8 = 0x08
    static let credentialManagement: UInt8 = 0x0A
    static let selection: UInt8 = 0x0B

    static let permissionMakeCredential: UInt64 = 0x01
    static let permissionGetAssertion: UInt64 = 0x02
    static let permissionCredentialManagement: UInt64 = 0x04
}

/// A CTAP2 platform driving a card through a request → response function (the authenticator,
/// a VirtualCard, or APDUs through the card front).
final class PlatformClient {
    let send: ([UInt8]) -> [UInt8]
    private var counter: UInt64 = 0

    init(send: @escaping ([UInt8]) -> [UInt8]) {
        self.send = send
    }

    /// 32 bytes that differ on every call and are the same in every run.
    func nextBytes(_ count: Int = 32) -> [UInt8] {
        counter += 1
        var block = Array("platform".utf8)
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift))) }
        return Array(SHA256.hash(block).prefix(count))
    }

    // MARK: - Requests

    /// command byte + canonical CBOR of `parameters`.
    static func request(_ command: UInt8, _ parameters: CBORMap?) -> [UInt8] {
        [command] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
    }

    @discardableResult
    func call(_ command: UInt8, _ parameters: CBORMap? = nil) -> CTAPReply {
        CTAPReply(bytes: send(Self.request(command, parameters)))
    }

    // MARK: - PIN protocol

    /// getKeyAgreement, then ECDH with a fresh platform key and the protocol's KDF.
    func session(protocol pinProtocol: Int) throws -> PlatformPINSession {
        let reply = call(CTAPByte.clientPIN, [.int(1): .int(pinProtocol), .int(2): 2])
        guard reply.isOK, let key = reply.map?[int: 1]?.mapValue,
              let x = key[int: -2]?.bytesValue, let y = key[int: -3]?.bytesValue else {
            throw PlatformFailure("getKeyAgreement failed: \(reply)")
        }
        var scalar = nextBytes()
        scalar[0] &= 0x7F  // below the group order
        return try Self.session(protocol: pinProtocol, platform: try P256PrivateKey(rawScalar: scalar),
                                card: try P256PublicKey(x: x, y: y))
    }

    /// The session of `platform`'s key with the card's key-agreement key: ECDH, then the
    /// protocol's KDF (protocol 1: SHA-256(Z); protocol 2: HKDF-SHA-256 into HMAC key ‖ AES key).
    static func session(protocol pinProtocol: Int, platform: P256PrivateKey, card: P256PublicKey) throws -> PlatformPINSession {
        let z = try platform.sharedSecret(with: card)
        let secret: [UInt8]
        if pinProtocol == 1 {
            secret = SHA256.hash(z)
        } else {
            let salt = [UInt8](repeating: 0, count: 32)
            secret = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
                + HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
        }
        let cose: CBORValue = .map([.int(1): 2, .int(3): -25, .int(-1): 1,
                                    .int(-2): .bytes(platform.publicKey.x), .int(-3): .bytes(platform.publicKey.y)])
        return PlatformPINSession(pinProtocol: pinProtocol, platformKey: cose, sharedSecret: secret)
    }

    /// The 64-byte zero-padded PIN block.
    static func paddedPIN(_ pin: String) -> [UInt8] {
        let bytes = Array(pin.utf8)
        return bytes + [UInt8](repeating: 0, count: max(0, 64 - bytes.count))
    }

    static func pinHash(_ pin: String) -> [UInt8] { Array(SHA256.hash(Array(pin.utf8)).prefix(16)) }

    /// The setPIN request (subcommand 3) for `pin`, in a fresh session.
    func setPINRequest(_ pin: String, protocol pinProtocol: Int = 1) throws -> CBORMap {
        let session = try session(protocol: pinProtocol)
        let newPinEnc = try session.encrypt(Self.paddedPIN(pin), iv: nextBytes(16))
        return [.int(1): .int(pinProtocol), .int(2): 3, .int(3): session.platformKey,
                .int(4): .bytes(session.authenticate(newPinEnc)), .int(5): .bytes(newPinEnc)]
    }

    @discardableResult
    func setPIN(_ pin: String, protocol pinProtocol: Int = 1) throws -> CTAPReply {
        call(CTAPByte.clientPIN, try setPINRequest(pin, protocol: pinProtocol))
    }

    /// The changePIN request (subcommand 4).
    func changePINRequest(from old: String, to new: String, protocol pinProtocol: Int = 1) throws -> CBORMap {
        let session = try session(protocol: pinProtocol)
        let pinHashEnc = try session.encrypt(Self.pinHash(old), iv: nextBytes(16))
        let newPinEnc = try session.encrypt(Self.paddedPIN(new), iv: nextBytes(16))
        return [.int(1): .int(pinProtocol), .int(2): 4, .int(3): session.platformKey,
                .int(4): .bytes(session.authenticate(newPinEnc + pinHashEnc)),
                .int(5): .bytes(newPinEnc), .int(6): .bytes(pinHashEnc)]
    }

    @discardableResult
    func changePIN(from old: String, to new: String, protocol pinProtocol: Int = 1) throws -> CTAPReply {
        call(CTAPByte.clientPIN, try changePINRequest(from: old, to: new, protocol: pinProtocol))
    }

    /// getPinToken (5) when `permissions` is nil, else getPinUvAuthTokenUsingPinWithPermissions (9).
    /// Like a platform, it names the RP of an mc or ga token: `rpId`, else example.com (a test
    /// that wants the member absent removes key 10).
    func tokenRequest(_ pin: String, protocol pinProtocol: Int = 1, permissions: UInt64? = nil,
                      rpId: String? = nil) throws -> (CBORMap, PlatformPINSession) {
        let rpId = rpId ?? ((permissions ?? 0) & 0x03 != 0 ? "example.com" : nil)
        let session = try session(protocol: pinProtocol)
        var request: CBORMap = [.int(1): .int(pinProtocol), .int(2): permissions == nil ? 5 : 9,
                                .int(3): session.platformKey,
                                .int(6): .bytes(try session.encrypt(Self.pinHash(pin), iv: nextBytes(16)))]
        if let permissions { request[int: 9] = .unsigned(permissions) }
        if let rpId { request[int: 10] = .text(rpId) }
        return (request, session)
    }

    /// A token, or the failing reply.
    func token(_ pin: String, protocol pinProtocol: Int = 1, permissions: UInt64? = nil,
               rpId: String? = nil) throws -> Result<PlatformToken, PlatformFailure> {
        let (request, session) = try tokenRequest(pin, protocol: pinProtocol, permissions: permissions, rpId: rpId)
        let reply = call(CTAPByte.clientPIN, request)
        guard reply.isOK, let encrypted = reply.map?[int: 2]?.bytesValue else {
            return .failure(PlatformFailure("token: \(reply)"))
        }
        return .success(PlatformToken(pinProtocol: pinProtocol, value: try session.decrypt(encrypted)))
    }

    /// getPINRetries (1).
    func pinRetries() -> Int? {
        call(CTAPByte.clientPIN, [.int(1): 1, .int(2): 1]).map?[int: 3]?.intValue
    }

    // MARK: - Credentials

    static func clientDataHash(_ label: String) -> [UInt8] { SHA256.hash(Array(label.utf8)) }

    /// A makeCredential request for ES256.
    static func makeCredentialRequest(rpId: String = "example.com", userId: [UInt8], userName: String = "user",
                                      rk: Bool, token: PlatformToken? = nil,
                                      clientDataHash: [UInt8] = clientDataHash("make")) -> CBORMap {
        var request: CBORMap = [
            .int(1): .bytes(clientDataHash), .int(2): .map(["id": .text(rpId), "name": "RP"]),
            .int(3): .map(["id": .bytes(userId), "name": .text(userName), "displayName": .text(userName)]),
            .int(4): .array([.map(["alg": -7, "type": "public-key"])]),
        ]
        if rk { request[int: 7] = .map(["rk": true]) }
        if let token {
            request[int: 8] = .bytes(token.authenticate(clientDataHash))
            request[int: 9] = .int(token.pinProtocol)
        }
        return request
    }

    /// A getAssertion request.
    static func getAssertionRequest(rpId: String = "example.com", allow: [[UInt8]] = [], token: PlatformToken? = nil,
                                    clientDataHash: [UInt8] = clientDataHash("get")) -> CBORMap {
        var request: CBORMap = [.int(1): .text(rpId), .int(2): .bytes(clientDataHash)]
        if !allow.isEmpty {
            request[int: 3] = .array(allow.map { .map(["id": .bytes($0), "type": "public-key"]) })
        }
        if let token {
            request[int: 6] = .bytes(token.authenticate(clientDataHash))
            request[int: 7] = .int(token.pinProtocol)
        }
        return request
    }

    /// An authenticated credentialManagement request: pinUvAuthParam over subCommand ‖ params.
    static func credentialManagementRequest(_ subcommand: UInt64, _ parameters: CBORMap? = nil,
                                            token: PlatformToken?) -> CBORMap {
        var request: CBORMap = [.int(1): .unsigned(subcommand)]
        if let parameters { request[int: 2] = .map(parameters) }
        if let token {
            var message: [UInt8] = [UInt8(truncatingIfNeeded: subcommand)]
            if let parameters { message += CBOREncoder.encode(.map(parameters)) }
            request[int: 3] = .int(token.pinProtocol)
            request[int: 4] = .bytes(token.authenticate(message))
        }
        return request
    }

    /// The credential ID in a makeCredential response's authData (WebAuthn §6.5.1), with the
    /// signature counter.
    static func credential(fromMakeCredential reply: CTAPReply) -> (id: [UInt8], counter: UInt32)? {
        guard let authData = reply.map?[int: 2]?.bytesValue, authData.count > 55 else { return nil }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        guard authData.count >= 55 + length else { return nil }
        return (Array(authData[55..<55 + length]), counter(authData))
    }

    /// The signature counter of authenticator data.
    static func counter(_ authData: [UInt8]) -> UInt32 {
        guard authData.count >= 37 else { return 0 }
        return authData[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
