import ArculusCard
import CardCrypto
import Foundation
import Testing
import FIDOWire
import TestSupport

extension CTAPResponse {
    /// The body of a CTAP2_OK response.
    func okBody() throws -> CBORMap {
        guard status == .ok else { throw TestFailure("expected CTAP2_OK, got \(status?.name ?? "\(bytes)")") }
        return map
    }
}

/// PIN/UV auth protocol one through a card's typed API, for card-level tests: TestSupport's
/// platform side (``PlatformPIN``), written apart from the card's own PIN code.
struct PlatformPINOne {
    let session: PlatformSession

    /// getKeyAgreement, then `encapsulate` with a fresh platform key.
    init(card: VirtualCard) throws {
        let body = try card.send(.clientPIN, [.int(1): 1, .int(2): 2]).okBody()
        guard let cardKey = body[int: 1] else { throw TestFailure("no key agreement key") }
        session = try PlatformPIN.one.encapsulate(cardKey)
    }

    /// The platform's key-agreement key, for keyAgreement (0x03).
    var platformKey: CBORValue { session.platformKey }
    /// SHA-256(Z).
    var sharedSecret: [UInt8] { session.sharedSecret }

    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] { try session.encrypt(plaintext) }

    static func setPIN(_ pin: String, on card: VirtualCard) throws {
        let session = try PlatformPINOne(card: card).session
        let newPinEnc = try session.encrypt(paddedPIN(pin))
        _ = try card.send(.clientPIN, [.int(1): 1, .int(2): 3, .int(3): session.platformKey,
                                       .int(4): .bytes(session.authenticate(newPinEnc)), .int(5): .bytes(newPinEnc)]).okBody()
    }

    /// getPinToken (0x05): the decrypted token.
    static func token(_ pin: String, on card: VirtualCard) throws -> [UInt8] {
        let session = try PlatformPINOne(card: card).session
        let body = try card.send(.clientPIN, [.int(1): 1, .int(2): 5, .int(3): session.platformKey,
                                              .int(6): .bytes(try session.encrypt(pinHash(pin)))]).okBody()
        guard let encrypted = body[int: 2]?.bytesValue else { throw TestFailure("no token") }
        return try session.decrypt(encrypted)
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
        request[int: 8] = .bytes(PlatformPIN.one.authenticate(key: token, clientDataHash))
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
