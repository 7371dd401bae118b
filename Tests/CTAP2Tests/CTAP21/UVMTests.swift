import CBOR
import CTAP2
import Testing
import FIDOWire

/// uvm (WebAuthn Level 2 §10.3): the reference card says how it checked the user, with the FIDO
/// Registry's values: 0x800 passcode external (clientPIN), 0x1 presence internal, 0x200 none; key
/// protection 0x0A (hardware, secure element), matcher on chip 0x4.
@Suite("uvm (WebAuthn §10.3)")
struct UVMTests {
    static func entry(_ method: Int) -> CBORValue { .array([.int(method), .int(0x0A), .int(0x04)]) }
    static let presence = entry(0x0001)
    static let passcode = entry(0x0800)
    static let none = entry(0x0200)

    @Test("WebAuthn §10.3 makeCredential: uvm: true → [presence] without a token, [passcode external, presence] with one")
    func makeCredential() throws {
        let client = try TestClient(profile: .reference)
        let plain = try client.makeCredential(userId: [1], extensions: ["uvm": true])
        #expect(plain.authData.extensions?[text: "uvm"] == .array([Self.presence]))
        try client.setPIN()
        let verified = try client.makeCredential(userId: [2], extensions: ["uvm": true], token: try client.token())
        #expect(verified.authData.uv)
        #expect(verified.authData.extensions?[text: "uvm"] == .array([Self.passcode, Self.presence]))
        #expect(try client.makeCredential(userId: [3], token: try client.token()).authData.extensions == nil, "no input, no output")
        #expect(try client.makeCredential(userId: [4], extensions: ["uvm": false]).authData.extensions == nil)
    }

    @Test("WebAuthn §10.3 getAssertion: each assertion says presence, passcode + presence, or none for up: false; the signature covers it")
    func getAssertion() throws {
        let client = try TestClient(profile: .reference)
        let made = try client.makeCredential()
        let present = try client.assert(allowList: [made.id], extensions: ["uvm": true])
        #expect(present.authData.extensions?[text: "uvm"] == .array([Self.presence]))
        #expect(present.verifies(with: made.publicKey))
        let silent = try client.assert(allowList: [made.id], extensions: ["uvm": true], options: ["up": false])
        #expect(silent.authData.extensions?[text: "uvm"] == .array([Self.none]))
        try client.setPIN()
        let verified = try client.assert(allowList: [made.id], extensions: ["uvm": true], token: try client.token())
        #expect(verified.authData.extensions?[text: "uvm"] == .array([Self.passcode, Self.presence]))
        #expect(verified.verifies(with: made.publicKey))
    }

    @Test("WebAuthn §10.3 with CTAP 2.1 §12: uvm of another type → CBOR_UNEXPECTED_TYPE; a card without uvm ignores it")
    func badInputAndNotOffered() throws {
        let client = try TestClient(profile: .reference)
        let request = TestClient.makeCredentialRequest(extensions: ["uvm": 1])
        #expect(client.makeCredential(request).status == .cborUnexpectedType)
        let made = try client.makeCredential()
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], extensions: ["uvm": "yes"])).status
                == .cborUnexpectedType)

        let plain = try TestClient()
        #expect(try plain.makeCredential(extensions: ["uvm": true]).authData.extensions == nil)
        #expect(try plain.getInfo()[int: 2]?.arrayValue?.contains("uvm") == false)
        #expect(try client.getInfo()[int: 2]?.arrayValue?.contains("uvm") == true)
    }
}
