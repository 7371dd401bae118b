import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// Review defect 11: RP IDs are compared as bytes. "é.example" in NFC (U+00E9) and in NFD
/// (e + U+0301) are canonically equivalent Unicode — equal as Swift Strings — but different RP IDs
/// with different rpIdHashes (WebAuthn §6.1: SHA-256 of the RP ID's UTF-8 bytes).
@Suite("Defect 11: RP IDs compared as bytes")
struct Defect11RPIDBytesTests {
    static let composed = "\u{E9}.example"
    static let decomposed = "e\u{301}.example"

    @Test("CTAP 2.1 §6.1.2 (rk: a credential of the same rp.id and user.id is overwritten): NFC and NFD forms are two RPs; each getAssertion finds only its own credential")
    func twoRPs() throws {
        #expect(Self.composed == Self.decomposed, "Swift compares them as equal")
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        let client = try TestClient()
        let nfc = try client.makeCredential(rpId: Self.composed, userId: [1], rk: true)
        let nfd = try client.makeCredential(rpId: Self.decomposed, userId: [1], rk: true)
        #expect(client.authenticator.state.residentCredentials.count == 2, "the second did not replace the first")

        let forNFC = try client.assert(rpId: Self.composed)
        #expect(forNFC.credentialId == nfc.id)
        #expect(forNFC.numberOfCredentials == nil)
        #expect(forNFC.verifies(with: nfc.publicKey))
        let forNFD = try client.assert(rpId: Self.decomposed)
        #expect(forNFD.credentialId == nfd.id)
        #expect(forNFD.numberOfCredentials == nil)
        #expect(client.getAssertion(TestClient.getAssertionRequest(rpId: Self.composed, allowList: [nfd.id])).status
                == .noCredentials)
    }

    @Test("CTAP 2.1 §6.8.3 enumerateRPs: the NFC and NFD forms are two RPs, each with its own bytes and rpIDHash")
    func enumerateTwoRPs() throws {
        let client = try TestClient()
        _ = try client.makeCredential(rpId: Self.composed, userId: [1], rk: true)
        _ = try client.makeCredential(rpId: Self.decomposed, userId: [1], rk: true)
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let first = try client.credentialManagement(CM.enumerateRPsBegin, token: token).body()
        #expect(first[int: 5] == .int(2), "totalRPs")
        let second = try client.credentialManagement(CM.enumerateRPsGetNextRP, token: nil).body()
        var ids: [[UInt8]] = []
        for entry in [first, second] {
            let id = try #require(entry[int: 3]?.mapValue?[text: "id"]?.textValue)
            ids.append(Array(id.utf8))
            #expect(entry[int: 4] == .bytes(SHA256.hash(Array(id.utf8))))
        }
        #expect(Set(ids) == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])
    }
}
