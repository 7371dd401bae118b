import ArculusCard
import CardCrypto
import Foundation
import Testing
import FIDOWire

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ArculusCardTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}

extension CTAPResponse {
    /// The body of a CTAP2_OK response.
    func okBody() throws -> CBORMap {
        guard status == .ok else { throw TestFailure("expected CTAP2_OK, got \(status?.name ?? "\(bytes)")") }
        return map
    }
}

/// PIN/UV auth protocol one, platform side (CTAP 2.1 §6.5.6), for card-level tests.
struct PlatformPINOne {
    let platformKey: CBORValue
    let sharedSecret: [UInt8]

    init(card: VirtualCard) throws {
        let body = try card.send(.clientPIN, [.int(1): 1, .int(2): 2]).okBody()
        guard let cardKey = body[int: 1]?.mapValue, let x = cardKey[int: -2]?.bytesValue, let y = cardKey[int: -3]?.bytesValue else {
            throw TestFailure("no key agreement key")
        }
        let key = try P256PrivateKey()
        sharedSecret = SHA256.hash(try key.sharedSecret(with: try P256PublicKey(x: x, y: y)))
        platformKey = .map([.int(1): 2, .int(3): -25, .int(-1): 1, .int(-2): .bytes(key.publicKey.x), .int(-3): .bytes(key.publicKey.y)])
    }

    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
        try AES256CBC.encrypt(key: sharedSecret, iv: [UInt8](repeating: 0, count: 16), plaintext: plaintext)
    }

    func authenticate(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticate(key: key, data: message).prefix(16))
    }

    static func setPIN(_ pin: String, on card: VirtualCard) throws {
        let session = try PlatformPINOne(card: card)
        let block = Array(pin.utf8) + [UInt8](repeating: 0, count: 64 - pin.utf8.count)
        let newPinEnc = try session.encrypt(block)
        _ = try card.send(.clientPIN, [.int(1): 1, .int(2): 3, .int(3): session.platformKey,
                                       .int(4): .bytes(session.authenticate(session.sharedSecret, newPinEnc)),
                                       .int(5): .bytes(newPinEnc)]).okBody()
    }

    /// getPinToken (0x05): the decrypted token.
    static func token(_ pin: String, on card: VirtualCard) throws -> [UInt8] {
        let session = try PlatformPINOne(card: card)
        let pinHashEnc = try session.encrypt(Array(SHA256.hash(Array(pin.utf8)).prefix(16)))
        let body = try card.send(.clientPIN, [.int(1): 1, .int(2): 5, .int(3): session.platformKey,
                                              .int(6): .bytes(pinHashEnc)]).okBody()
        guard let encrypted = body[int: 2]?.bytesValue else { throw TestFailure("no token") }
        return try AES256CBC.decrypt(key: session.sharedSecret, iv: [UInt8](repeating: 0, count: 16), ciphertext: encrypted)
    }
}

/// makeCredential parameters for `rpId` / `userId`, optionally discoverable and with a token.
func makeCredentialParameters(rpId: String = "example.com", userId: [UInt8], rk: Bool, token: [UInt8]? = nil) -> CBORMap {
    let clientDataHash = SHA256.hash(Array("make \(rpId)".utf8))
    var request: CBORMap = [
        .int(1): .bytes(clientDataHash), .int(2): .map(["id": .text(rpId)]),
        .int(3): .map(["id": .bytes(userId), "name": "user"]),
        .int(4): .array([.map(["alg": -7, "type": "public-key"])]),
    ]
    if rk { request[int: 7] = .map(["rk": true]) }
    if let token {
        request[int: 8] = .bytes(Array(HMACSHA256.authenticate(key: token, data: clientDataHash).prefix(16)))
        request[int: 9] = 1
    }
    return request
}

/// The credential ID and public key from a makeCredential response's authData.
func credential(from response: CBORMap) throws -> (id: [UInt8], key: P256PublicKey) {
    guard let authData = response[int: 2]?.bytesValue, authData.count > 55 else { throw TestFailure("no authData") }
    let length = Int(authData[53]) << 8 | Int(authData[54])
    let id = Array(authData[55..<55 + length])
    let (coseKey, _) = try CBORDecoder.decodePrefix(authData[(55 + length)...])
    guard let map = coseKey.mapValue, let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue else {
        throw TestFailure("no credential public key")
    }
    return (id, try P256PublicKey(x: x, y: y))
}

/// getAssertion parameters for example.com with `allow` as the allow list.
func getAssertionParameters(rpId: String = "example.com", allow id: [UInt8]) -> CBORMap {
    [.int(1): .text(rpId), .int(2): .bytes(SHA256.hash(Array("get \(rpId)".utf8))),
     .int(3): .array([.map(["id": .bytes(id), "type": "public-key"])])]
}

/// The signature counter in a makeCredential or getAssertion response's authData.
func signatureCounter(of response: CBORMap) throws -> UInt32 {
    // authData is member 2 of a getAssertion answer and of a makeCredential answer.
    guard let authData = response[int: 2]?.bytesValue, authData.count >= 37 else { throw TestFailure("no authData") }
    return authData[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
}
