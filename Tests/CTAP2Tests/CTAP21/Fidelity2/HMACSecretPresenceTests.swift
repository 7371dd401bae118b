import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// hmac-secret derives a secret only with user presence, and a salt of the wrong length is an
/// invalid parameter (CTAP 2.1 §12.5, the authenticator's getAssertion processing).
@Suite("Fidelity 2: hmac-secret presence and salt length (CTAP 2.1 §12.5)")
struct HMACSecretPresenceTests {
    static let profiles: [CardProfile] = CardProfile.builtIn

    @Test("CTAP 2.1 §12.5: \"If \"up\" is set to false, authenticator returns CTAP2_ERR_UNSUPPORTED_OPTION\" — no output",
          arguments: profiles, PlatformPIN.allCases)
    func upFalseIsRefused(profile: CardProfile, pinProtocol: PlatformPIN) throws {
        guard profile.pinUvAuthProtocols.contains(pinProtocol.rawValue) else { return }
        let client = try TestClient(profile: profile)
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)
        let extensions: CBORMap = ["hmac-secret": try HMACSecretTests.input(session, salts: HMACSecretTests.salt1)]
        let silent = TestClient.getAssertionRequest(allowList: [made.id], extensions: extensions, options: ["up": false])
        #expect(client.getAssertion(silent).status == .unsupportedOption)
        // With presence, the same input is answered.
        let present = try client.assert(allowList: [made.id], extensions: extensions)
        #expect(present.authData.extensions?[text: "hmac-secret"]?.bytesValue != nil)
    }

    @Test("CTAP 2.1 §12.5: a pre-flight with up=false and no hmac-secret input still answers (the rule is the extension's)")
    func upFalseWithoutTheExtensionAnswers() throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let reply = client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], options: ["up": false]))
        #expect(reply.status == .ok)
    }

    @Test("CTAP 2.1 §12.5: \"If the decryption fails, or if the result is not 32 or 64 bytes long, return CTAP1_ERR_INVALID_PARAMETER\"",
          arguments: PlatformPIN.allCases, [16, 48, 96])
    func saltOfTheWrongLength(pinProtocol: PlatformPIN, length: Int) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)
        let saltEnc = try session.encrypt([UInt8](repeating: 7, count: length))
        let input: CBORValue = .map([
            .int(1): session.platformKey, .int(2): .bytes(saltEnc),
            .int(3): .bytes(session.authenticate(saltEnc)), .int(4): .int(pinProtocol.rawValue),
        ])
        let reply = client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], extensions: ["hmac-secret": input]))
        #expect(reply.status == .invalidParameter)
    }
}
