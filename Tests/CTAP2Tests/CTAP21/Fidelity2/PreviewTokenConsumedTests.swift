import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// A getPinToken token serves credentialManagementPreview (0x41) only while it holds the
/// permissions getPinToken gave it: user presence collected by a getAssertion with it clears
/// every permission but lbw (CTAP 2.1 §6.2.2 step 9.4), and a token with no permission left
/// manages nothing (§6.8: "If the pinUvAuthToken does not have the cm permission, return
/// CTAP2_ERR_PIN_AUTH_INVALID").
@Suite("Fidelity 2: a consumed getPinToken token deletes nothing through 0x41")
struct PreviewTokenConsumedTests {
    @Test("CTAP 2.1 §6.2.2 step 9.4 then §6.8.5 as 0x41: getPinToken, getAssertion with its pinUvAuthParam, deleteCredential with the same token → PIN_AUTH_INVALID; the credential stays",
          arguments: PlatformPIN.allCases)
    func consumedTokenDeletesNothing(pinProtocol: PlatformPIN) throws {
        let (client, made) = try CredentialManagementPreviewTests.card()
        let token = try client.token(Fixture.shortPIN, pinProtocol)  // getPinToken (0x05)
        let assertion = try client.assert(allowList: [made[0].id], token: token)
        #expect(assertion.authData.up && assertion.authData.uv)
        let delete = TestClient.credentialManagementRequest(CM.deleteCredential,
                                                            parameters: [.int(2): TestClient.descriptor(made[0].id)], token: token)
        #expect(client.send(CTAPByte.credentialManagementPreview, delete).status == .pinAuthInvalid)
        #expect(client.authenticator.state.residentCredentials.count == 3)
        // A fresh getPinToken token still serves the preview form.
        let fresh = try client.token(Fixture.shortPIN, pinProtocol)
        let again = TestClient.credentialManagementRequest(CM.deleteCredential,
                                                           parameters: [.int(2): TestClient.descriptor(made[0].id)], token: fresh)
        #expect(client.send(CTAPByte.credentialManagementPreview, again).status == .ok)
        #expect(client.authenticator.state.residentCredentials.count == 2)
    }
}
