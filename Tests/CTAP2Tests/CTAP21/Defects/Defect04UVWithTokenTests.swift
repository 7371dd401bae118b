import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Review defect 4: a pinUvAuthParam takes precedence over the "uv" option; with one, uv is
/// treated as false, so uv=true is accepted and the UV flag comes from the token.
@Suite("Defect 4: uv=true beside a pinUvAuthParam is treated as false")
struct Defect04UVWithTokenTests {
    @Test("CTAP 2.1 §6.1.2 step 5.2: makeCredential with uv=true and a pinUvAuthParam is accepted; UV set from the token",
          arguments: PlatformPIN.allCases, [false, true])
    func makeCredential(pinProtocol: PlatformPIN, residentKey: Bool) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        let request = TestClient.makeCredentialRequest(options: ["uv": true, "rk": .bool(residentKey)], token: token)
        let made = try MadeCredential(try client.makeCredential(request).body(), clientDataHash: Fixture.clientDataHash())
        #expect(made.authData.uv)
        #expect(made.authData.up)
        #expect(client.authenticator.state.residentCredentials.count == (residentKey ? 1 : 0))
    }

    @Test("CTAP 2.1 §6.2.2 step 4.2: getAssertion with uv=true and a pinUvAuthParam is accepted; UV set from the token",
          arguments: PlatformPIN.allCases)
    func getAssertion(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        let assertion = try client.assert(allowList: [made.id], options: ["uv": true], token: token)
        #expect(assertion.authData.uv)
        #expect(assertion.verifies(with: made.publicKey))
    }

    @Test("CTAP 2.1 §6.1.2 step 5.2: uv=true with a pinUvAuthParam that does not verify → PIN_AUTH_INVALID (the token decides, not the option)")
    func tokenStillChecked() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = TestClient.makeCredentialRequest(options: ["uv": true])
        request[int: 8] = .bytes([UInt8](repeating: 0x11, count: 32))
        request[int: 9] = 2
        #expect(client.makeCredential(request).status == .pinAuthInvalid)
    }
}
