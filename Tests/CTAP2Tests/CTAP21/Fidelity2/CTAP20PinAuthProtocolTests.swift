import CBOR
import CTAP2
import Testing
import FIDOWire

/// The CTAP 2.0 profile answers a pinAuth under a protocol it does not support as CTAP 2.0 says
/// (§5.1 step 7, §5.2 step 3: "If pinAuth parameter is present and the pinProtocol is not
/// supported, return CTAP2_ERR_PIN_AUTH_INVALID"); CTAP 2.1's MISSING_PARAMETER /
/// INVALID_PARAMETER (§6.1.2 step 2) stay on the CTAP 2.1 profiles.
@Suite("Fidelity 2: CTAP 2.0 pinAuth with an absent or unsupported pinProtocol")
struct CTAP20PinAuthProtocolTests {
    static let protocols: [UInt64?] = [nil, 2, 3]

    @Test("CTAP 2.0 §5.1 step 7: makeCredential with a pinAuth and pinProtocol absent, 2 or 3 → PIN_AUTH_INVALID; nothing stored",
          arguments: protocols)
    func makeCredential(pinProtocol: UInt64?) throws {
        let client = try TestClient(profile: .arculusFIDO2)
        try client.setPIN()
        let token = try client.token()
        var request = TestClient.makeCredentialRequest(options: ["rk": true], token: token)
        request[int: 9] = pinProtocol.map { .unsigned($0) }
        #expect(client.makeCredential(request).status == .pinAuthInvalid)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
        request[int: 9] = 1
        #expect(client.makeCredential(request).status == .ok, "the same pinAuth under protocol 1 verifies")
    }

    @Test("CTAP 2.0 §5.2 step 3: getAssertion with a pinAuth and pinProtocol absent, 2 or 3 → PIN_AUTH_INVALID",
          arguments: protocols)
    func getAssertion(pinProtocol: UInt64?) throws {
        let client = try TestClient(profile: .arculusFIDO2)
        let made = try client.makeCredential()
        try client.setPIN()
        var request = TestClient.getAssertionRequest(allowList: [made.id], token: try client.token())
        request[int: 7] = pinProtocol.map { .unsigned($0) }
        #expect(client.getAssertion(request).status == .pinAuthInvalid)
    }

    @Test("CTAP 2.1 §6.1.2 step 2 on the CTAP 2.1 profile: absent → MISSING_PARAMETER, unsupported → INVALID_PARAMETER (unchanged)")
    func ctap21Unchanged() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = TestClient.makeCredentialRequest(token: try client.token())
        request[int: 9] = nil
        #expect(client.makeCredential(request).status == .missingParameter)
        request[int: 9] = 3
        #expect(client.makeCredential(request).status == .invalidParameter)
    }
}
