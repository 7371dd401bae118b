import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// pinUvAuthParam lengths (CTAP 2.1 §6.5.6 protocol one: LEFT(HMAC, 16); §6.5.7 protocol two:
/// the whole 32-byte HMAC). verify() compares the whole value, so a protocol-2 parameter cut to
/// protocol 1's length, or a protocol-1 parameter sent as protocol 2, fails (issue 14 item 7).
@Suite("pinUvAuthParam lengths per PIN/UV auth protocol (CTAP 2.1 §6.5.6, §6.5.7)")
struct PINProtocolTwoTests {
    /// A card with a PIN, a non-discoverable credential made before it, and a discoverable one.
    static func card() throws -> (TestClient, MadeCredential) {
        let client = try TestClient()
        let made = try client.makeCredential()
        try client.setPIN()
        return (client, made)
    }

    static func cut(_ request: inout CBORMap, key: Int, to length: Int) {
        guard let param = request[int: key]?.bytesValue else { return }
        request[int: key] = .bytes(Array(param.prefix(length)))
    }

    @Test("CTAP 2.1 §6.5.7 verify: protocol two's pinUvAuthParam is 32 bytes; cut to 16 → PIN_AUTH_INVALID for makeCredential, getAssertion and credentialManagement")
    func cutToSixteen() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two,
                                     permissions: PermissionBit.makeCredential | PermissionBit.getAssertion | PermissionBit.credentialManagement,
                                     rpId: Fixture.rpID)
        var mc = TestClient.makeCredentialRequest(token: token)
        #expect(mc[int: 8]?.bytesValue?.count == 32)
        Self.cut(&mc, key: 8, to: 16)
        #expect(client.makeCredential(mc).status == .pinAuthInvalid)
        var ga = TestClient.getAssertionRequest(allowList: [made.id], token: token)
        Self.cut(&ga, key: 6, to: 16)
        #expect(client.getAssertion(ga).status == .pinAuthInvalid)
        var cm = TestClient.credentialManagementRequest(CM.enumerateCredentialsBegin,
                                                        parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                        token: token)
        Self.cut(&cm, key: 4, to: 16)
        #expect(client.send(CTAPByte.credentialManagement, cm).status == .pinAuthInvalid)
        // The whole parameter is still good: none of the cut ones used the token up.
        #expect(try client.assert(allowList: [made.id], options: ["up": false], token: token).authData.uv)
    }

    @Test("CTAP 2.1 §6.5.6 verify: a protocol-one pinUvAuthParam of 16 bytes works with pinUvAuthProtocol 1 only; sent as protocol 2 → PIN_AUTH_INVALID; the whole 32-byte HMAC as protocol 1 → PIN_AUTH_INVALID")
    func protocolOneLength() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .one, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        var asTwo = TestClient.getAssertionRequest(allowList: [made.id], token: token)
        #expect(asTwo[int: 6]?.bytesValue?.count == 16)
        asTwo[int: 7] = 2
        #expect(client.getAssertion(asTwo).status == .pinAuthInvalid)
        var whole = TestClient.getAssertionRequest(allowList: [made.id], token: token)
        whole[int: 6] = .bytes(PlatformPIN.two.authenticate(key: token.value, Fixture.clientDataHash("assertion")))
        #expect(client.getAssertion(whole).status == .pinAuthInvalid)
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv)
    }

    @Test("CTAP 2.1 §6.5.7: a protocol-two parameter padded or extended beyond 32 bytes → PIN_AUTH_INVALID",
          arguments: [31, 33, 48, 64])
    func otherLengths(length: Int) throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        var request = TestClient.getAssertionRequest(allowList: [made.id], token: token)
        let param = try #require(request[int: 6]?.bytesValue)
        request[int: 6] = .bytes(Array((param + [UInt8](repeating: 0, count: 32)).prefix(length)))
        #expect(client.getAssertion(request).status == .pinAuthInvalid)
    }
}
