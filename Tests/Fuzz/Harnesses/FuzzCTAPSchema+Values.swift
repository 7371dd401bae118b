import CardCrypto
import CBOR
import FIDOWire
import TestSupport

// The values FuzzCTAPSchema puts in requests: PIN protocol values computed under the platform's
// session, entities and lists, edges of each type, and CBOR of any type.

extension FuzzCTAPSchema {
    // MARK: - PIN protocol values

    mutating func platformKey(_ session: PlatformSession?) -> CBORValue {
        session?.platformKey ?? .map([1: 2, 3: -25, -1: 1, -2: .bytes(fuzzFiller(32, seed: 5)), -3: .bytes(fuzzFiller(32, seed: 6))])
    }

    /// A COSE key that is not the platform's ECDH key: wrong algorithm, curve or key type, a
    /// point off the curve, a coordinate missing or short.
    mutating func edgeKey(_ session: PlatformSession?) -> CBORValue {
        var key = platformKey(session).mapValue ?? CBORMap()
        switch input.choice(6) {
        case 0: key[int: 3] = -7
        case 1: key[int: -1] = 2
        case 2: key[int: 1] = 1
        case 3: key[int: -3] = .bytes(fuzzFiller(32, seed: input.byte()))
        case 4: _ = key.removeValue(forKey: .int(-3))
        default: key[int: -2] = .bytes(fuzzFiller(31, seed: 7))
        }
        return .map(key)
    }

    mutating func encrypted(_ session: PlatformSession?, _ plaintext: [UInt8]) -> CBORValue {
        guard let session, !plaintext.isEmpty, plaintext.count % 16 == 0,
              let ciphertext = try? session.encrypt(plaintext, iv: platform.nextIV()) else {
            return .bytes(plaintext.isEmpty ? [] : fuzzFiller(plaintext.count, seed: 8))
        }
        return .bytes(ciphertext)
    }

    /// A plaintext of an edge size, encrypted when its size allows.
    mutating func edgeEncrypted(_ session: PlatformSession?, _ size: Int) -> CBORValue {
        let plaintext = edgeBytes(size).bytesValue ?? []
        return encrypted(session, plaintext)
    }

    /// newPinEnc: a PIN from the pool, padded to 64 bytes (or, now and then, to 32 or 80).
    mutating func newPinEnc(_ session: PlatformSession?) -> CBORValue {
        let pin = input.pick(Self.pins)
        platform.pendingPIN = pin
        let bytes = Array(pin.utf8)
        let size = input.pick([64, 64, 64, 32, 80])
        return encrypted(session, bytes.prefix(size) + [UInt8](repeating: 0, count: max(0, size - bytes.count)))
    }

    /// pinHashEnc: LEFT(SHA-256(PIN), 16) of the PIN the platform believes set, or of another.
    mutating func pinHashEnc(_ session: PlatformSession?) -> CBORValue {
        let pin = input.pick([platform.pin ?? "1234"] + Self.pins)
        return encrypted(session, pinHash(pin))
    }

    // MARK: - Entities and lists

    mutating func rpId() -> String { input.pick(Self.rpIds) }

    mutating func hash() -> CBORValue { .bytes(fuzzFiller(32, seed: input.byte())) }

    mutating func rp() -> CBORValue {
        let bits = input.byte()
        var rp: CBORMap = ["id": .text(rpId())]
        if bits & 1 == 0 { rp["name"] = "RP" }
        if bits & 2 != 0 { rp["icon"] = "https://example.com/icon.png" }
        if bits & 4 != 0 { rp["name"] = .text(String(repeating: "n", count: 65)) }
        return .map(rp)
    }

    mutating func user() -> CBORValue {
        let bits = input.byte()
        var user: CBORMap = ["id": .bytes(input.pick(Self.userIds))]
        if bits & 1 == 0 { user["name"] = "user" }
        if bits & 2 == 0 { user["displayName"] = "User" }
        if bits & 4 != 0 { user["icon"] = "https://example.com/u.png" }
        if bits & 8 != 0 { user["name"] = .text(String(repeating: "u", count: 65)) }
        return .map(user)
    }

    mutating func edgeUser() -> CBORValue {
        switch input.choice(6) {
        case 0: .map(["id": .bytes(fuzzFiller(65, seed: 9)), "name": "u"])
        case 1: .map(["id": .bytes([])])
        case 2: .map(["name": "u"])
        case 3: .map(["id": "text id"])
        case 4: .map(["id": .bytes([1]), "name": .bytes([1])])
        default: .map(["id": .bytes([1]), "name": .text(String(repeating: "x", count: 300))])
        }
    }

    mutating func edgeEntity() -> CBORValue {
        switch input.choice(4) {
        case 0: .map(["name": "RP"])
        case 1: .map(["id": 5])
        case 2: .map(["id": "example.com", "name": 1])
        default: .map([:])
        }
    }

    mutating func algorithms() -> CBORValue {
        let es256: CBORValue = .map(["alg": -7, "type": "public-key"])
        switch input.choice(4) {
        case 0: return .array([es256])
        case 1: return .array([.map(["alg": -8, "type": "public-key"]), es256])
        case 2: return .array([.map(["alg": -257, "type": "public-key"]), es256])
        default: return .array([.map(["alg": -7, "type": "public-key", "x": 1])])
        }
    }

    mutating func edgeAlgorithms() -> CBORValue {
        switch input.choice(6) {
        case 0: .array([])
        case 1: .array([.map(["type": "public-key"])])
        case 2: .array([.map(["alg": -257, "type": "public-key"])])
        case 3: .array([.map(["alg": -7, "type": "other"])])
        case 4: .array([1])
        default: .array([.map(["alg": "-7", "type": "public-key"])])
        }
    }

    /// A credential ID: one the card holds or returned, or some other bytes.
    mutating func credentialID() -> [UInt8] {
        let known = platform.credentialIDs
        let index = Int(input.byte())
        if index < 0xF0, !known.isEmpty { return known[index % known.count] }
        return fuzzFiller([16, 64, 100, 0][index % 4], seed: UInt8(truncatingIfNeeded: index))
    }

    mutating func descriptors() -> CBORValue {
        .array((0...input.choice(3)).map { _ in .map(["id": .bytes(credentialID()), "type": "public-key"]) })
    }

    mutating func edgeDescriptors() -> CBORValue {
        let id = CBORValue.bytes(credentialID())
        switch input.choice(6) {
        case 0: return .array([.map(["id": id])])
        case 1: return .array([.map(["type": "public-key"])])
        case 2: return .array([5])
        case 3: return .array([.map(["id": id, "type": "secret"])])
        case 4: return .array([])
        default: return .array(Array(repeating: .map(["id": id, "type": "public-key"]), count: 70))
        }
    }

    mutating func extensions(assertion: Bool) -> CBORValue {
        let bits = input.byte()
        var extensions = CBORMap()
        if bits & 1 != 0 { extensions["credProtect"] = .int(1 + input.choice(3)) }
        if bits & 2 != 0 { extensions["hmac-secret"] = assertion ? hmacSecretInput() : true }
        if bits & 4 != 0 { extensions["credBlob"] = assertion ? true : .bytes(input.shortPiece()) }
        if bits & 8 != 0 { extensions["largeBlobKey"] = true }
        if bits & 16 != 0 { extensions["minPinLength"] = true }
        if bits & 32 != 0 { extensions["x-unknown"] = 1 }
        return .map(extensions)
    }

    mutating func edgeExtensions() -> CBORValue {
        switch input.choice(6) {
        case 0: .map(["credProtect": 0])
        case 1: .map(["credProtect": 4])
        case 2: .map(["hmac-secret": 1])
        case 3: .map(["credProtect": "1"])
        case 4: .map(["hmac-secret": .map([:])])
        default: .map([1: true])
        }
    }

    /// hmac-secret's input (CTAP 2.1 §12.5): keyAgreement, saltEnc, saltAuth and the protocol,
    /// under the platform's session; the salt 32 or 64 bytes, the saltAuth now and then wrong.
    mutating func hmacSecretInput() -> CBORValue {
        let pinProtocol = input.pick([platform.preferredProtocol, 1, 2])
        let session = platform.session(pinProtocol)
        let salt = fuzzFiller(input.pick([32, 64, 32, 16]), seed: input.byte())
        let saltEnc = encrypted(session, salt).bytesValue ?? []
        var saltAuth = session?.authenticate(saltEnc) ?? fuzzFiller(pinProtocol == 1 ? 16 : 32, seed: 10)
        let variant = input.byte() % 8
        if variant == 1 { saltAuth[0] ^= 1 }
        var map: CBORMap = [1: platformKey(session), 2: .bytes(saltEnc), 3: .bytes(saltAuth)]
        if pinProtocol != 1 || variant == 2 { map[int: 4] = .int(pinProtocol) }
        if variant == 3 { _ = map.removeValue(forKey: .int(1)) }
        return .map(map)
    }

    mutating func options() -> CBORValue {
        let bits = input.byte()
        var options = CBORMap()
        if bits & 1 != 0 { options["rk"] = .bool(bits & 2 != 0) }
        if bits & 4 != 0 { options["up"] = .bool(bits & 8 != 0) }
        if bits & 16 != 0 { options["uv"] = .bool(bits & 32 != 0) }
        if bits & 64 != 0 { options["plat"] = .bool(bits & 128 != 0) }
        return .map(options)
    }

    mutating func edgeOptions() -> CBORValue {
        switch input.choice(4) {
        case 0: .map(["rk": 1])
        case 1: .map(["uv": "true"])
        case 2: .map([1: true])
        default: .map(["up": .null])
        }
    }

    mutating func credentialManagementParameters(_ subcommand: CredentialManagementSubcommand) -> CBORValue {
        let descriptor: CBORValue = .map(["id": .bytes(credentialID()), "type": "public-key"])
        switch subcommand {
        case .deleteCredential:
            return .map([.int(CredentialManagementParameterKey.credentialID.rawValue): descriptor])
        case .updateUserInformation:
            return .map([.int(CredentialManagementParameterKey.credentialID.rawValue): descriptor,
                         .int(CredentialManagementParameterKey.user.rawValue): user()])
        default:
            return .map([.int(CredentialManagementParameterKey.rpIDHash.rawValue): .bytes(SHA256.hash(Array(rpId().utf8)))])
        }
    }

    // MARK: - Edges and any values

    mutating func edgeBytes(_ size: Int) -> CBORValue {
        let sizes = [0, size - 1, size + 1, 1, 2 * size, 255]
        return .bytes(fuzzFiller(sizes[input.choice(sizes.count)], seed: 11))
    }

    mutating func edgeInt() -> CBORValue { Self.edgeInt(input.byte()) }

    static func edgeInt(_ choice: UInt8) -> CBORValue {
        switch choice % 7 {
        case 0: 0
        case 1: 3
        case 2: 255
        case 3: -1
        case 4: .unsigned(UInt64.max)
        case 5: .negative(UInt64.max)
        default: 0x1_0000_0000
        }
    }

    static func anyKey(_ input: inout FuzzInput) -> CBORValue {
        switch input.choice(4) {
        case 0: .int(Int(input.byte() % 32))
        case 1: .int(-Int(input.byte() % 8) - 1)
        case 2: "x"
        default: .bytes([1])
        }
    }

    /// A CBOR value of any type (nested at most three deep).
    static func anyValue(_ input: inout FuzzInput, depth: Int = 0) -> CBORValue {
        switch input.choice(10) {
        case 0: return .unsigned(UInt64(input.byte()))
        case 1: return .negative(UInt64(input.byte()))
        case 2: return .bytes(input.shortPiece())
        case 3: return .text(String(decoding: input.shortPiece(), as: UTF8.self))
        case 4: return depth > 2 ? .array([]) : .array((0..<input.choice(4)).map { _ in anyValue(&input, depth: depth + 1) })
        case 5:
            guard depth <= 2 else { return .map([:]) }
            var map = CBORMap()
            for _ in 0..<input.choice(4) { map[anyKey(&input)] = anyValue(&input, depth: depth + 1) }
            return .map(map)
        case 6: return .bool(input.bool())
        case 7: return .null
        case 8: return .undefined
        default: return input.pick([.unsigned(UInt64.max), .negative(UInt64.max), .unsigned(1 << 32)])
        }
    }
}
