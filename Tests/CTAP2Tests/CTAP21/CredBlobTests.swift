import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire

/// The credBlob extension (CTAP 2.1 §12.2) on the reference card (maxCredBlobLength 64):
/// makeCredential stores a blob of at most maxCredBlobLength bytes, getAssertion with
/// `"credBlob": true` returns it — for discoverable credentials and for non-discoverable ones
/// (whose credential ID carries it).
@Suite("credBlob (CTAP 2.1 §12.2)")
struct CredBlobTests {
    static let blob64 = (0..<64).map { UInt8($0) }

    static func make(_ client: TestClient, blob: [UInt8], rk: Bool, userId: [UInt8] = Fixture.userID) throws -> MadeCredential {
        try client.makeCredential(userId: userId, rk: rk, extensions: ["credBlob": .bytes(blob)])
    }

    static func credBlob(_ client: TestClient, _ made: MadeCredential, rk: Bool) throws -> CBORValue? {
        let assertion = try client.assert(allowList: rk ? nil : [made.id], extensions: ["credBlob": true])
        #expect(assertion.credentialId == made.id)
        #expect(assertion.verifies(with: made.publicKey))
        return assertion.authData.extensions?[text: "credBlob"]
    }

    @Test("CTAP 2.1 §6.4: getInfo maxCredBlobLength (0x0F) is the profile's 64; a card without credBlob has none")
    func getInfo() throws {
        #expect(try TestClient(profile: .reference).getInfo()[int: 0x0F] == .int(64))
        #expect(try TestClient().getInfo()[int: 0x0F] == nil)
    }

    @Test("CTAP 2.1 §12.2 makeCredential: a blob of at most maxCredBlobLength is stored (output credBlob: true); getAssertion credBlob: true returns it",
          arguments: [false, true], [0, 1, 32, 64])
    func storesAndReturns(rk: Bool, length: Int) throws {
        let client = try TestClient(profile: .reference)
        let blob = Array(Self.blob64.prefix(length))
        let made = try Self.make(client, blob: blob, rk: rk)
        #expect(made.authData.extensions?[text: "credBlob"] == true)
        #expect(try Self.credBlob(client, made, rk: rk) == .bytes(blob))
        if rk { #expect(client.authenticator.state.residentCredentials.first?.credBlob == blob) }
    }

    @Test("CTAP 2.1 §12.2 makeCredential: a blob longer than maxCredBlobLength → output credBlob: false and nothing stored (getAssertion returns empty bytes)",
          arguments: [false, true])
    func tooLong(rk: Bool) throws {
        let client = try TestClient(profile: .reference)
        let made = try Self.make(client, blob: Self.blob64 + [64], rk: rk)
        #expect(made.authData.extensions?[text: "credBlob"] == false)
        #expect(try Self.credBlob(client, made, rk: rk) == .bytes([]))
        if rk { #expect(client.authenticator.state.residentCredentials.first?.credBlob == nil) }
    }

    @Test("CTAP 2.1 §12.2 getAssertion: a credential made without a credBlob answers credBlob: true with empty bytes; credBlob: false (or absent) gives no output",
          arguments: [false, true])
    func noBlob(rk: Bool) throws {
        let client = try TestClient(profile: .reference)
        let made = try client.makeCredential(rk: rk)
        #expect(try Self.credBlob(client, made, rk: rk) == .bytes([]))
        let without = try client.assert(allowList: rk ? nil : [made.id], extensions: ["credBlob": false])
        #expect(without.authData.extensions == nil)
        #expect(try client.assert(allowList: rk ? nil : [made.id]).authData.extensions == nil)
    }

    @Test("CTAP 2.1 §12.2: each credential keeps its own blob (two discoverable credentials through getNextAssertion)")
    func perCredential() throws {
        let client = try TestClient(profile: .reference)
        let first = try Self.make(client, blob: [1, 1, 1], rk: true, userId: [1])
        let second = try Self.make(client, blob: [2, 2], rk: true, userId: [2])
        let blobs = [first.id: [UInt8]([1, 1, 1]), second.id: [2, 2]]
        let a = try client.assert(extensions: ["credBlob": true])
        let b = try client.getNextAssertion()
        for assertion in [a, b] {
            #expect(assertion.authData.extensions?[text: "credBlob"] == blobs[assertion.credentialId].map { .bytes($0) })
        }
    }

    @Test("CTAP 2.1 §12.2: inputs of the wrong type → CBOR_UNEXPECTED_TYPE; a card without credBlob ignores them")
    func wrongTypes() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(extensions: ["credBlob": true])).status == .cborUnexpectedType)
        let made = try client.makeCredential()
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], extensions: ["credBlob": .bytes([1])])).status
                == .cborUnexpectedType)
        let plain = try TestClient()
        let ignored = try Self.make(plain, blob: [1, 2, 3], rk: false)
        #expect(ignored.authData.extensions == nil)
    }
}
