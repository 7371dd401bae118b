import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// authenticatorLargeBlobs (CTAP 2.1 §6.10) on the reference card (maxSerializedLargeBlobArray
/// 4096, maxMsgSize 2048: fragments of at most 1984 bytes), and the largeBlobKey extension (§12.3).
@Suite("authenticatorLargeBlobs (CTAP 2.1 §6.10) and largeBlobKey (§12.3)")
struct LargeBlobsTests {
    static let empty = TestClient.serializedLargeBlobArray([])
    /// About 3000 bytes: three fragments of 1000.
    static let big = TestClient.serializedLargeBlobArray([
        .map([.int(1): .bytes([UInt8](repeating: 0xA1, count: 1400)), .int(2): .bytes([UInt8](repeating: 1, count: 12)),
              .int(3): 1400]),
        .map([.int(1): .bytes([UInt8](repeating: 0xB2, count: 1500)), .int(2): .bytes([UInt8](repeating: 2, count: 12)),
              .int(3): 1500]),
    ])

    @Test("CTAP 2.1 §6.10.1, §6.10.2 get: a new card holds the empty array 0x80 ‖ LEFT(SHA-256(0x80), 16)")
    func emptyArray() throws {
        let client = try TestClient(profile: .reference)
        #expect(Self.empty.count == 17)
        #expect(try client.readLargeBlobArray() == Self.empty)
        #expect(try client.largeBlobGet(offset: 5, count: 100).body()[int: 1] == .bytes(Array(Self.empty[5...])))
        #expect(try client.largeBlobGet(offset: 17, count: 100).body()[int: 1] == .bytes([]))
    }

    @Test("CTAP 2.1 §6.10.2 get: more than maxFragmentLength → INVALID_LENGTH; an offset past the array → INVALID_PARAMETER; get with length, or get and set → INVALID_PARAMETER; neither → INVALID_PARAMETER")
    func getErrors() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.largeBlobGet(offset: 0, count: 1984).status == .ok)
        #expect(client.largeBlobGet(offset: 0, count: 1985).status == .invalidLength)
        #expect(client.largeBlobGet(offset: 18, count: 1).status == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): 10, .int(3): 0, .int(4): 17]).status == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): 10, .int(2): .bytes(Self.empty), .int(3): 0, .int(4): 17]).status
                == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(3): 0]).status == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): 10]).status == .invalidParameter, "offset is required (step 1: INVALID_PARAMETER)")
    }

    @Test("CTAP 2.1 §6.10.2 set: written in fragments (offset, length with the first) and read back whole; only the last fragment makes it durable",
          arguments: [1000, 1984])
    func fragments(size: Int) throws {
        let client = try TestClient(profile: .reference)
        #expect(Self.big.count > 2 * 1000)
        let first = Array(Self.big[0..<size])
        #expect(client.largeBlobSet(first, offset: 0, length: Self.big.count, token: nil).status == .ok)
        #expect(client.authenticator.state.largeBlobArray == Self.empty, "nothing stored before the last fragment")
        var offset = size
        while offset < Self.big.count {
            let fragment = Array(Self.big[offset..<min(Self.big.count, offset + size)])
            #expect(client.largeBlobSet(fragment, offset: offset, length: nil, token: nil).status == .ok)
            offset += fragment.count
        }
        #expect(client.authenticator.state.largeBlobArray == Self.big)
        #expect(try client.readLargeBlobArray(count: 700) == Self.big)
    }

    @Test("CTAP 2.1 §6.10.2 set step 4: an offset other than the next expected one → INVALID_SEQ; a later fragment with no write begun → INVALID_SEQ")
    func wrongOffset() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.largeBlobSet(Array(Self.big[0..<1000]), offset: 0, length: Self.big.count, token: nil).status == .ok)
        #expect(client.largeBlobSet(Array(Self.big[500..<1500]), offset: 500, length: nil, token: nil).status == .invalidSequence)
        #expect(client.largeBlobSet(Array(Self.big[1000..<2000]), offset: 1000, length: nil, token: nil).status == .ok,
                "the write in progress is kept")
        let fresh = try TestClient(profile: .reference)
        #expect(fresh.largeBlobSet(Array(Self.big[1000..<2000]), offset: 1000, length: nil, token: nil).status == .invalidSequence)
    }

    @Test("CTAP 2.1 §6.10.2: another command between fragments ends the write: the next fragment → INVALID_SEQ")
    func otherCommandEndsWrite() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.largeBlobSet(Array(Self.big[0..<1000]), offset: 0, length: Self.big.count, token: nil).status == .ok)
        _ = try client.getInfo()
        #expect(client.largeBlobSet(Array(Self.big[1000..<2000]), offset: 1000, length: nil, token: nil).status == .invalidSequence)
    }

    @Test("CTAP 2.1 §6.10.2 set step 10.1: the last 16 bytes not LEFT(SHA-256(array), 16) → INTEGRITY_FAILURE; the stored array unchanged")
    func integrityFailure() throws {
        let client = try TestClient(profile: .reference)
        var corrupt = Self.big
        corrupt[corrupt.count - 1] ^= 0x01
        #expect(client.writeLargeBlobArray(corrupt, fragmentSize: 1000, token: nil).status == .integrityFailure)
        #expect(client.authenticator.state.largeBlobArray == Self.empty)
        #expect(try client.readLargeBlobArray() == Self.empty)
    }

    @Test("CTAP 2.1 §6.10.2 set steps 1–3, 6: a length beyond maxSerializedLargeBlobArray → LARGE_BLOB_STORAGE_FULL; under 17, or missing on the first fragment, or present on a later one → INVALID_PARAMETER; past the length → INVALID_PARAMETER; a fragment over maxFragmentLength → INVALID_LENGTH")
    func setErrors() throws {
        let client = try TestClient(profile: .reference)
        #expect(try client.getInfo()[int: 0x0B] == .int(4096))
        #expect(client.largeBlobSet(Array(Self.big[0..<100]), offset: 0, length: 4097, token: nil).status == .largeBlobStorageFull)
        #expect(client.largeBlobSet([0x80], offset: 0, length: 16, token: nil).status == .invalidParameter)
        #expect(client.largeBlobSet(Array(Self.big[0..<100]), offset: 0, length: nil, token: nil).status == .invalidParameter)
        #expect(client.largeBlobSet(Array(Self.big[0..<100]), offset: 0, length: 200, token: nil).status == .ok)
        #expect(client.largeBlobSet(Array(Self.big[100..<200]), offset: 100, length: 200, token: nil).status == .invalidParameter)
        #expect(client.largeBlobSet(Array(Self.big[100..<201]), offset: 100, length: nil, token: nil).status == .invalidParameter)
        #expect(client.largeBlobSet([UInt8](repeating: 0, count: 1985), offset: 0, length: 4000, token: nil).status
                == .invalidLength)
        #expect(client.authenticator.state.largeBlobArray == Self.empty)
    }

    @Test("CTAP 2.1 §6.10.2 set step 5: with a PIN, no pinUvAuthParam → PUAT_REQUIRED; a token without lbw → PIN_AUTH_INVALID; with lbw → OK",
          arguments: PlatformPIN.allCases)
    func writeNeedsLbw(pinProtocol: PlatformPIN) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(client.largeBlobSet(Self.empty, offset: 0, length: 17, token: nil).status == .puatRequired)
        let noLbw = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.credentialManagement)
        #expect(client.largeBlobSet(Self.empty, offset: 0, length: 17, token: noLbw).status == .pinAuthInvalid)
        let lbw = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.largeBlobWrite)
        #expect(client.writeLargeBlobArray(Self.big, fragmentSize: 1000, token: lbw).status == .ok)
        #expect(try client.readLargeBlobArray() == Self.big, "reading needs no token")
    }

    @Test("CTAP 2.1 §6.10.2 set step 5.3: the MAC covers 32×0xff ‖ 0x0c 0x00 ‖ uint32LE(offset) ‖ SHA-256(set); over another offset or fragment → PIN_AUTH_INVALID")
    func writeMessage() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.largeBlobWrite)
        let first = Array(Self.big[0..<1000])
        #expect(client.largeBlobSet(first, offset: 0, length: Self.big.count, token: token).status == .ok)
        let second = Array(Self.big[1000..<2000])
        var request = TestClient.largeBlobSetRequest(second, offset: 1000, length: nil, token: token)
        request[int: 5] = .bytes(token.authenticate(TestClient.largeBlobMessage(offset: 0, fragment: second)))
        #expect(client.send(CTAPByte.largeBlobs, request).status == .pinAuthInvalid, "MAC over offset 0")
        request[int: 5] = .bytes(token.authenticate(TestClient.largeBlobMessage(offset: 1000, fragment: first)))
        #expect(client.send(CTAPByte.largeBlobs, request).status == .pinAuthInvalid, "MAC over another fragment")
        // big-endian offset instead of little-endian
        let bigEndian = [UInt8](repeating: 0xFF, count: 32) + [0x0C, 0x00, 0x00, 0x00, 0x03, 0xE8] + SHA256.hash(second)
        request[int: 5] = .bytes(token.authenticate(bigEndian))
        #expect(client.send(CTAPByte.largeBlobs, request).status == .pinAuthInvalid, "MAC with a big-endian offset")
    }

    @Test("CTAP 2.1 §6.10: a card without large blobs → INVALID_COMMAND")
    func noLargeBlobs() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        #expect(client.largeBlobGet(offset: 0, count: 10).status == .invalidCommand)
    }

    // MARK: - largeBlobKey

    @Test("CTAP 2.1 §12.3 largeBlobKey: makeCredential rk with largeBlobKey true → response member 0x05 (32 bytes); getAssertion with it → 0x07, the same key; without it → no 0x07")
    func largeBlobKey() throws {
        let client = try TestClient(profile: .reference)
        var request = TestClient.makeCredentialRequest(extensions: ["largeBlobKey": true], options: ["rk": true])
        let body = try client.makeCredential(request).body()
        let key = try #require(body[int: 5]?.bytesValue)
        #expect(key.count == 32)
        let made = try MadeCredential(body, clientDataHash: Fixture.clientDataHash())
        #expect(made.authData.extensions?[text: "largeBlobKey"] == nil, "the key is a response member, not an authData output")

        let assertion = try client.assert(extensions: ["largeBlobKey": true])
        #expect(assertion.response[int: 7] == .bytes(key))
        #expect(try client.assert().response[int: 7] == nil)

        request = TestClient.makeCredentialRequest(userId: [7], extensions: ["largeBlobKey": true], options: ["rk": true])
        let secondKey = try #require(try client.makeCredential(request).body()[int: 5]?.bytesValue)
        #expect(secondKey != key, "a key per credential")
    }

    @Test("CTAP 2.1 §12.3: each assertion of a getAssertion / getNextAssertion carries its own credential's largeBlobKey")
    func largeBlobKeyPerAssertion() throws {
        let client = try TestClient(profile: .reference)
        var keys: [[UInt8]: [UInt8]] = [:]
        for user in [[1], [2]] as [[UInt8]] {
            let request = TestClient.makeCredentialRequest(userId: user, extensions: ["largeBlobKey": true], options: ["rk": true])
            let body = try client.makeCredential(request).body()
            let made = try MadeCredential(body, clientDataHash: Fixture.clientDataHash())
            keys[made.id] = try #require(body[int: 5]?.bytesValue)
        }
        let first = try client.assert(extensions: ["largeBlobKey": true])
        #expect(first.numberOfCredentials == 2)
        let second = try client.getNextAssertion()
        for assertion in [first, second] {
            #expect(assertion.response[int: 7] == keys[assertion.credentialId].map { .bytes($0) })
        }
    }

    @Test("CTAP 2.1 §12.3: largeBlobKey on a non-discoverable credential → INVALID_OPTION; an input of false → INVALID_OPTION (this card's reading: the input, when present, is true)")
    func largeBlobKeyErrors() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(extensions: ["largeBlobKey": true])).status == .invalidOption)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(extensions: ["largeBlobKey": false],
                                                                       options: ["rk": true])).status == .invalidOption)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(extensions: ["largeBlobKey": 1],
                                                                       options: ["rk": true])).status == .cborUnexpectedType)
        _ = try client.makeCredential(rk: true)
        #expect(client.getAssertion(TestClient.getAssertionRequest(extensions: ["largeBlobKey": false])).status == .invalidOption)
        #expect(client.authenticator.state.residentCredentials.count == 1)
    }

    @Test("CTAP 2.1 §12.3: a discoverable credential made without largeBlobKey gives no 0x07 even when asked")
    func noKeyNoMember() throws {
        let client = try TestClient(profile: .reference)
        _ = try client.makeCredential(rk: true)
        #expect(try client.assert(extensions: ["largeBlobKey": true]).response[int: 7] == nil)
    }

    @Test("CTAP 2.1 §6.8.4 enumerateCredentials shows a credential's largeBlobKey (0x0B)")
    func largeBlobKeyInCredentialManagement() throws {
        let client = try TestClient(profile: .reference)
        let request = TestClient.makeCredentialRequest(extensions: ["largeBlobKey": true], options: ["rk": true])
        let key = try #require(try client.makeCredential(request).body()[int: 5]?.bytesValue)
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let entry = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                    token: token).body()
        #expect(entry[int: 0x0B] == .bytes(key))
    }
}
