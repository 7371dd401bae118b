import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// hmac-secret-mc (CTAP 2.2 §12.7): the hmac-secret PRF evaluated at creation. Its output must be
/// what getAssertion's hmac-secret gives for the same salt in the same user verification state.
@Suite("hmac-secret-mc (CTAP 2.2)")
struct HMACSecretMCTests {
    @Test("CTAP 2.2 §12.7: makeCredential with hmac-secret and hmac-secret-mc returns the encrypted PRF output; equal to getAssertion's for the same salt and UV state",
          arguments: [false, true], [-7, -8])
    func sameAsAssertion(rk: Bool, algorithm: Int) throws {
        for uv in [false, true] {
            let client = try TestClient(profile: .reference)
            if uv { try client.setPIN() }  // without a PIN, a discoverable credential needs no token
            let session = try client.session(.two)
            let salts = HMACSecretTests.salt1 + HMACSecretTests.salt2
            let extensions: CBORMap = ["hmac-secret": true,
                                       "hmac-secret-mc": try HMACSecretTests.input(session, salts: salts)]
            let token = uv ? try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID) : nil
            let request = TestClient.makeCredentialRequest(algorithms: [algorithm], extensions: extensions,
                                                           options: rk ? ["rk": true] : nil, token: token)
            let body = try client.makeCredential(request).body()
            let authData = try AuthData(try #require(body[int: 2]?.bytesValue))
            #expect(authData.uv == uv)
            #expect(authData.extensions?[text: "hmac-secret"] == true)
            let encrypted = try #require(authData.extensions?[text: "hmac-secret-mc"]?.bytesValue)
            let atCreation = try session.decrypt(encrypted)
            #expect(atCreation.count == 64)

            let id = try #require(authData.credentialId)
            let gaToken = uv ? try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID) : nil
            let assertion = try client.assert(allowList: [id], extensions: ["hmac-secret": try HMACSecretTests.input(session, salts: salts)],
                                              token: gaToken)
            #expect(assertion.authData.uv == uv)
            let atAssertion = try session.decrypt(try #require(assertion.authData.extensions?[text: "hmac-secret"]?.bytesValue))
            #expect(atAssertion == atCreation, "uv: \(uv)")
        }
    }

    @Test("CTAP 2.2 §12.7: hmac-secret-mc without hmac-secret: true is ignored (no output, no hmac-secret)")
    func needsHMACSecret() throws {
        let client = try TestClient(profile: .reference)
        let session = try client.session(.one)
        let made = try client.makeCredential(extensions: ["hmac-secret-mc": try HMACSecretTests.input(session, salts: HMACSecretTests.salt1)])
        #expect(made.authData.extensions == nil)
    }

    @Test("CTAP 2.2 §12.7 with CTAP 2.1 §12.5's checks: a wrong saltAuth → PIN_AUTH_INVALID; a 48-byte salt → INVALID_PARAMETER (§12.5: \"not 32 or 64 bytes long, return CTAP1_ERR_INVALID_PARAMETER\"); no credential is stored",
          arguments: PlatformPIN.allCases)
    func badInput(pinProtocol: PlatformPIN) throws {
        let client = try TestClient(profile: .reference)
        let session = try client.session(pinProtocol)
        guard case .map(var input) = try HMACSecretTests.input(session, salts: HMACSecretTests.salt1) else {
            throw TestFailure("not a map")
        }
        input[int: 3] = .bytes(session.authenticate(HMACSecretTests.salt2))
        let wrongAuth = TestClient.makeCredentialRequest(extensions: ["hmac-secret": true, "hmac-secret-mc": .map(input)],
                                                         options: ["rk": true])
        #expect(client.makeCredential(wrongAuth).status == .pinAuthInvalid)
        let short = TestClient.makeCredentialRequest(
            extensions: ["hmac-secret": true,
                         "hmac-secret-mc": try HMACSecretTests.input(session, salts: [UInt8](repeating: 3, count: 48))],
            options: ["rk": true])
        #expect(client.makeCredential(short).status == .invalidParameter)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
    }

    @Test("CTAP 2.2 §12.7: a card without hmac-secret-mc ignores the input (arculus-fido21)")
    func notOffered() throws {
        let client = try TestClient()
        let session = try client.session(.two)
        let made = try client.makeCredential(extensions: ["hmac-secret": true,
                                                          "hmac-secret-mc": try HMACSecretTests.input(session, salts: HMACSecretTests.salt1)])
        #expect(made.authData.extensions == ["hmac-secret": true])
    }
}
