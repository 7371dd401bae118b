import ArculusCard
import CBOR
import CTAP2
import CardCrypto
import Foundation
import Testing
import FIDOWire
import TestSupport

/// The CTAP 2.1 state in a card image: every CardState field the rewrite added (minPINLength,
/// minPinLengthRPIDs, forcePINChange, alwaysUv, enterpriseAttestationEnabled, largeBlobArray,
/// persistentToken, credentialStoreVersion) and a credential's algorithm, credBlob, largeBlobKey
/// and thirdPartyPayment survive a reopen — from the journal and from a compacted snapshot — and
/// an image written before they existed still opens.
@Suite("Card images with CTAP 2.1 state")
struct CTAP21ImageTests {
    static let pin = "123456"
    static let clientDataHash = SHA256.hash(Array("ctap21 image".utf8))
    static let credBlob: [UInt8] = [1, 2, 3, 4]
    static let largeBlobs = serializedLargeBlobArray([.map([.int(1): .bytes([UInt8](repeating: 0x5A, count: 600)),
                                                            .int(2): .bytes([UInt8](repeating: 7, count: 12)), .int(3): 600])])

    /// What a populated card handed out, to check the reopened one with.
    struct Issued {
        let state: CardState
        let persistentToken, credentialId, largeBlobKey: [UInt8]
        let credentialKey: CredentialPublicKey
    }

    /// A reference card at `path` that used every CTAP 2.1 setting, each through its command, with
    /// every change left in the journal.
    static func populate(_ path: String) throws -> Issued {
        let card = try VirtualCard(imageAt: path, profile: .reference)
        let file = try #require(card.storage as? CardImageFile)
        file.compactionThreshold = Int.max
        // Without a PIN the configuration needs no token.
        #expect(card.send(.config, configParameters(0x03, [.int(1): 6, .int(2): ["example.com", "other.example"]])).status == .ok)
        #expect(card.send(.config, configParameters(0x01)).status == .ok)
        #expect(card.send(.largeBlobs, [.int(2): .bytes(largeBlobs), .int(3): 0, .int(4): .int(largeBlobs.count)]).status == .ok)
        let made = try card.send(.makeCredential, [
            .int(1): .bytes(clientDataHash), .int(2): .map(["id": "example.com"]),
            .int(3): .map(["id": .bytes([1]), "name": "alice"]), .int(4): .array([.map(["alg": -8, "type": "public-key"])]),
            .int(6): .map(["credBlob": .bytes(credBlob), "largeBlobKey": true, "thirdPartyPayment": true]),
            .int(7): .map(["rk": true]),
        ]).okBody()
        let largeBlobKey = try #require(made[int: 5]?.bytesValue)
        let (id, key) = try edDSACredential(from: made)
        try PlatformPINOne.setPIN(pin, on: card)
        let persistentToken = try PlatformPINOne.token(pin, permissions: 0x40, on: card)
        let acfg = try PlatformPINOne.token(pin, permissions: 0x20, on: card)
        #expect(card.send(.config, configParameters(0x02, token: acfg)).status == .ok)
        #expect(card.send(.config, configParameters(0x03, [.int(3): true], token: acfg)).status == .ok)
        let state = card.authenticator.state
        #expect(state.minPINLength == 6)
        #expect(state.minPinLengthRPIDs == ["example.com", "other.example"])
        #expect(state.forcePINChange)
        #expect(state.alwaysUv)
        #expect(state.enterpriseAttestationEnabled)
        #expect(state.largeBlobArray == largeBlobs)
        #expect(state.persistentToken == persistentToken)
        #expect(state.credentialStoreVersion == 1)
        let credential = try #require(state.residentCredentials.first)
        #expect(credential.algorithm == -8)
        #expect(credential.credBlob == credBlob)
        #expect(credential.largeBlobKey == largeBlobKey)
        #expect(credential.thirdPartyPayment)
        return Issued(state: state, persistentToken: persistentToken, credentialId: id, largeBlobKey: largeBlobKey, credentialKey: key)
    }

    /// The EdDSA credential of a makeCredential response: its ID and its key (COSE OKP, RFC 9053 §7.2).
    static func edDSACredential(from response: CBORMap) throws -> ([UInt8], CredentialPublicKey) {
        let authData = try #require(response[int: 2]?.bytesValue)
        let length = Int(authData[53]) << 8 | Int(authData[54])
        let id = Array(authData[55..<55 + length])
        let (cose, _) = try CBORDecoder.decodePrefix(authData[(55 + length)...])
        let map = try #require(cose.mapValue)
        #expect(map[int: 1] == 1)
        #expect(map[int: 3] == -8)
        #expect(map[int: -1] == 6)
        let x = try #require(map[int: -2]?.bytesValue)
        return (id, try CredentialPublicKey(algorithm: .edDSA, coseKey: .okp(curve: .ed25519, x: x)))
    }

    /// What the reopened card shows of each setting, through its commands.
    static func expectRestored(_ card: VirtualCard, _ issued: Issued) throws {
        #expect(card.authenticator.state == issued.state)
        let info = try card.send(.getInfo).okBody()
        let options = try #require(info[int: 4]?.mapValue)
        #expect(options[text: "alwaysUv"] == true)
        #expect(options[text: "makeCredUvNotRqd"] == false)
        #expect(options[text: "ep"] == true)
        #expect(info[int: 0x0C] == true, "forcePINChange")
        #expect(info[int: 0x0D] == 6, "minPINLength")
        #expect(info[int: 0x19] != nil, "encIdentifier: the persistent token is there")
        // The persistent token works after the reopen; it sees the one credential.
        let metadata = try card.send(.credentialManagement, [
            .int(1): 1, .int(3): 1,
            .int(4): .bytes(Array(HMACSHA256.authenticate(key: issued.persistentToken, data: [0x01]).prefix(16))),
        ]).okBody()
        #expect(metadata[int: 1] == 1)
        // Large blobs, read back.
        let blobs = try card.send(.largeBlobs, [.int(1): 1024, .int(3): 0]).okBody()
        #expect(blobs[int: 1] == .bytes(largeBlobs))
        // The credential: EdDSA, its credBlob, largeBlobKey and thirdPartyPayment (up=false: alwaysUv
        // asks a token only of operations with user presence).
        let assertion = try card.send(.getAssertion, [
            .int(1): "example.com", .int(2): .bytes(clientDataHash),
            .int(4): .map(["credBlob": true, "largeBlobKey": true, "thirdPartyPayment": true]), .int(5): .map(["up": false]),
        ]).okBody()
        #expect(assertion[int: 1]?.mapValue?[text: "id"] == .bytes(issued.credentialId))
        #expect(assertion[int: 7] == .bytes(issued.largeBlobKey))
        let authData = try #require(assertion[int: 2]?.bytesValue)
        #expect(issued.credentialKey.isValidSignature(try #require(assertion[int: 3]?.bytesValue), for: authData + clientDataHash))
        let (extensions, _) = try CBORDecoder.decodePrefix(authData[37...])
        #expect(extensions.mapValue?[text: "credBlob"] == .bytes(credBlob))
        #expect(extensions.mapValue?[text: "thirdPartyPayment"] == true)
        // alwaysUv: U2F is off at the front. forcePINChange: no token until the PIN changes, though
        // the PIN is right (no retry is used): getPinToken answers CTAP2_ERR_PIN_INVALID (CTAP 2.1
        // §6.5.5.7.1), getPinUvAuthTokenUsingPinWithPermissions CTAP2_ERR_PIN_POLICY_VIOLATION (§6.5.5.7.2).
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(u2fRegisterAPDU(application: SHA256.hash(Array("example.com".utf8)))).sw == 0x6D00)
        let retries = card.pinState.retries
        #expect(throws: TestFailure("expected CTAP2_OK, got CTAP2_ERR_PIN_INVALID")) { _ = try PlatformPINOne.token(pin, on: card) }
        #expect(throws: TestFailure("expected CTAP2_OK, got CTAP2_ERR_PIN_POLICY_VIOLATION")) {
            _ = try PlatformPINOne.token(pin, permissions: 0x02, rpId: "example.com", on: card)
        }
        #expect(card.pinState.retries == retries)
    }

    @Test("every CTAP 2.1 field survives a reopen from the journal")
    func journal() throws {
        let (directory, path) = try Self.image()
        let issued = try Self.populate(path)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes != CardImageFormat.encode(issued.state), "the changes are journal records after the first snapshot")
        try Self.expectRestored(try VirtualCard(imageAt: path), issued)
        withExtendedLifetime(directory) {}
    }

    @Test("every CTAP 2.1 field survives a compaction (the journal folded into a new snapshot) and the reopen after it")
    func compaction() throws {
        let (directory, path) = try Self.image()
        let issued = try Self.populate(path)
        do {
            // A commit whose journal outgrows the snapshot compacts (CardImageFile.commit): append
            // a change that changes nothing until it does.
            let file = try CardImageFile(path: path)
            #expect(try file.load() == issued.state)
            file.compactionThreshold = 0
            var compacted = false
            for _ in 0..<20 where !compacted {
                try file.commit([.setLargeBlobArray(issued.state.largeBlobArray)], onto: issued.state)
                compacted = try Array(Data(contentsOf: URL(fileURLWithPath: path))) == CardImageFormat.encode(issued.state)
            }
            #expect(compacted, "the image is one snapshot of the state")
        }
        try Self.expectRestored(try VirtualCard(imageAt: path), issued)
        withExtendedLifetime(directory) {}
    }

    /// A temporary directory and the path of a card image in it (gone with the directory).
    static func image() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        return (directory, directory.file("card.img"))
    }

    // MARK: - Every mutation, every credential field

    /// A discoverable credential of `algorithm` with every CTAP 2.1 field set.
    static func fullCredential(_ algorithm: SignatureAlgorithm, serial: UInt64) throws -> ResidentCredential {
        let key = try CredentialPrivateKey(algorithm: algorithm, randomBytes: { SecureRandom.bytes($0) })
        return ResidentCredential(id: SecureRandom.bytes(97), rpId: "rp\(serial).example", rpName: nil, userId: [UInt8(serial)],
                                  userName: "u\(serial)", userDisplayName: nil, algorithm: algorithm.rawValue,
                                  privateKey: key.privateKeyBytes, credProtect: 2, hmacSecret: true, serial: serial,
                                  credBlob: [UInt8](repeating: UInt8(serial), count: 32), largeBlobKey: SecureRandom.bytes(32),
                                  thirdPartyPayment: serial % 2 == 0)
    }

    static func allMutations() throws -> [CardMutation] {
        var mutations: [CardMutation] = [.setPIN(hash: pinHash("12345678"), codePoints: 8)]
        var credentials: [ResidentCredential] = []
        for (index, algorithm) in SignatureAlgorithm.allCases.enumerated() {
            credentials.append(try fullCredential(algorithm, serial: UInt64(index + 1)))
        }
        mutations += credentials.map { .addCredential($0) }
        mutations += [
            .setPINPolicy(minimumLength: 9, rpIDs: ["a.example", "\u{E9}.example"], forcePINChange: true),
            .setAlwaysUv(true), .enableEnterpriseAttestation,
            .setLargeBlobArray(largeBlobs), .setPersistentToken(SecureRandom.bytes(32)),
            .updateUser(id: credentials[0].id, name: nil, displayName: nil),
            .clearPIN, .setPIN(hash: pinHash("87654321"), codePoints: 8),
        ]
        return mutations
    }

    @Test("CardMutation journal records: each CTAP 2.1 change (and credentials of every algorithm with credBlob, largeBlobKey, thirdPartyPayment) reads back as written; the same state through a snapshot",
          arguments: [false, true])
    func everyMutation(compact: Bool) throws {
        let (directory, path) = try Self.image()
        defer { withExtendedLifetime(directory) {} }
        var expected = CardState(profile: .reference, masterSecret: SecureRandom.bytes(32))
        do {
            let file = try CardImageFile(path: path)
            file.compactionThreshold = Int.max
            try file.save(expected)
            for mutation in try Self.allMutations() {
                try file.commit([mutation], onto: expected)
                expected.apply(mutation)
            }
            if compact { try file.save(expected) }
        }
        #expect(expected.residentCredentials.count == SignatureAlgorithm.allCases.count)
        #expect(expected.credentialStoreVersion == UInt64(SignatureAlgorithm.allCases.count + 1))
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect((bytes == CardImageFormat.encode(expected)) == compact)
        let reopened = try CardImageFile(path: path)
        #expect(try reopened.load() == expected)
        // Forgetting the persistent token is a change too.
        try reopened.commit([.setPersistentToken(nil)], onto: expected)
        expected.apply(.setPersistentToken(nil))
        #expect(try CardImageFormat.state(fromImage: Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path) == expected)
    }

    // MARK: - An image from before CTAP 2.1

    /// arculus-fido21 as a profile file had it before the optional features existed.
    static let oldProfileJSON = """
        {"aaguid":"3f59672f-20aa-4afe-b6f4-7e5e916b6d98","algorithms":[-7],"atr":"3B8A8001417263756C7573456D7519",
         "attestation":"packed","credentialManagement":true,"description":"Arculus FIDO 2.1 Key Card [P71] (emulated)",
         "extensions":["credProtect","hmac-secret"],"firmwareVersion":513,"makeCredUvNotRqd":true,"maxCredentialCountInList":8,
         "maxCredentialIdLength":128,"maxMsgSize":2048,"minPINLength":4,"name":"arculus-fido21","pinUvAuthProtocols":[2,1],
         "pinUvAuthToken":true,"resetWindowSeconds":10,"residentKeyCapacity":50,"selectResponse":"FIDO_2_0",
         "transports":["nfc"],"versions":["U2F_V2","FIDO_2_0","FIDO_2_1"]}
        """

    /// One image record: 4-byte big-endian length, kind, payload, LEFT(SHA-256(all before), 16)
    /// (the layout CardImageFormat documents).
    static func record(_ kind: Character, _ payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        let head = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                    UInt8(ascii: kind.unicodeScalars.first!)] + payload
        return head + SHA256.hash(head).prefix(16)
    }

    /// A credential with only the members the old encoder wrote.
    static func oldCredential(id: [UInt8], scalar: [UInt8], userId: [UInt8], serial: Int) -> CBORValue {
        .map(["id": .bytes(id), "rpId": "example.com", "rpName": "Example", "userId": .bytes(userId), "userName": "old",
              "privateKey": .bytes(scalar), "credProtect": 1, "hmacSecret": false, "serial": .int(serial)])
    }

    @Test("an image written before CTAP 2.1 (the old encoder's keys only, snapshot and journal) opens: the new fields take a new card's values and the old credentials sign")
    func oldImage() throws {
        let (directory, path) = try Self.image()
        defer { withExtendedLifetime(directory) {} }
        let first = try P256PrivateKey()
        let second = try P256PrivateKey()
        let firstId = SecureRandom.bytes(81)
        let secondId = SecureRandom.bytes(81)
        let snapshot: CBORMap = [
            "profile": .bytes(Array(Self.oldProfileJSON.utf8)), "masterSecret": .bytes(SecureRandom.bytes(32)),
            "pinHash": .bytes(pinHash(Self.pin)), "pinCodePoints": 6, "pinRetries": 7,
            "signatureCounter": 41, "nextCredentialSerial": 2,
            "residentCredentials": .array([Self.oldCredential(id: firstId, scalar: first.rawScalar, userId: [1], serial: 1)]),
        ]
        let journal: [CBORValue] = [
            ["counter", 42],
            ["add", Self.oldCredential(id: secondId, scalar: second.rawScalar, userId: [2], serial: 2)],
            ["user", .bytes(firstId), "renamed", .null],
        ]
        let image = Array("ARCIMG".utf8) + [0x00, 0x02] + Self.record("S", CBOREncoder.encode(.map(snapshot)))
            + Self.record("M", CBOREncoder.encode(.array(journal)))
        try Data(image).write(to: URL(fileURLWithPath: path))

        let card = try VirtualCard(imageAt: path)
        let state = card.authenticator.state
        #expect(card.profile.name == "arculus-fido21")
        #expect(card.profile.largeBlobs == false, "an optional feature the old file did not name is off")
        #expect(card.profile.signatureCounterReservation == 1)
        #expect(state.pinRetries == 7)
        #expect(state.signatureCounter == 42)
        #expect(state.minPINLength == nil)
        #expect(state.minPinLengthRPIDs.isEmpty)
        #expect(!state.forcePINChange)
        #expect(!state.alwaysUv)
        #expect(!state.enterpriseAttestationEnabled)
        #expect(state.largeBlobArray == CardState.emptyLargeBlobArray)
        #expect(state.persistentToken == nil)
        #expect(state.credentialStoreVersion == 2, "the two journal changes to credentials")
        #expect(state.residentCredentials.map(\.id) == [firstId, secondId])
        for credential in state.residentCredentials {
            #expect(credential.algorithm == -7)
            #expect(credential.credBlob == nil)
            #expect(credential.largeBlobKey == nil)
            #expect(!credential.thirdPartyPayment)
        }
        #expect(state.residentCredentials.first?.userName == "renamed")

        // Discoverable lookup: the newer credential first, then the older one.
        let newer = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(newer.credentialId == secondId)
        #expect(newer.verifies(with: second.publicKey))
        #expect(newer.counter == 43)
        let older = try Assertion(card.send(.getNextAssertion))
        #expect(older.credentialId == firstId)
        #expect(older.verifies(with: first.publicKey))
        #expect(try PlatformPINOne.token(Self.pin, on: card).count == 32)
    }
}
