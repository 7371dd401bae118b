import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire

/// Review defect 2: a profile without FIDO_2_1 (`.arculusFIDO2`) is a CTAP 2.0 authenticator —
/// its pinToken, its option errors and its hmac-secret are CTAP 2.0's. getInfo's members 0x01–0x08
/// only: GetInfoTests.ctap21Members ("members 0x09 and up exist only on FIDO_2_1").
@Suite("Defect 2: the CTAP 2.0 profile behaves as CTAP 2.0")
struct Defect02CTAP20ProfileTests {
    static let otherRpId = "second.example"

    @Test("CTAP 2.0 §5.5.8 (using the pinToken): it has no RP: one token serves makeCredential for two RPs, then getAssertion")
    func pinTokenNotBoundToAnRP() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        try client.setPIN(Fixture.shortPIN, .one)
        let token = try client.token(Fixture.shortPIN, .one)
        let first = try client.makeCredential(token: token)
        #expect(first.authData.uv)
        let second = try client.makeCredential(rpId: Self.otherRpId, token: token)
        #expect(second.authData.uv, "a second RP with the same pinToken")
        #expect(try client.assert(rpId: Self.otherRpId, allowList: [second.id], token: token).authData.uv)
        #expect(try client.assert(allowList: [first.id], token: token).authData.uv)
    }

    @Test("CTAP 2.0 §5.1 step 3 (uv known, not supported → UNSUPPORTED_OPTION) vs CTAP 2.1 §6.1.2 step 5.3 (no built-in uv → INVALID_OPTION): makeCredential uv=true without a token",
          arguments: [(CardProfile.arculusFIDO2, CTAPStatus.unsupportedOption), (.arculusFIDO21, .invalidOption)])
    func makeCredentialUV(profile: CardProfile, expected: CTAPStatus) throws {
        let client = try TestClient(profile: profile)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["uv": true])).status == expected)
    }

    @Test("CTAP 2.0 §5.1 step 3 / §5.2 step 5: uv=true is an unsupported option even beside a pinAuth (2.1's precedence rule is 2.1's)")
    func uvWithPinAuthOnCTAP20() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        let made = try client.makeCredential()
        try client.setPIN(Fixture.shortPIN, .one)
        let token = try client.token(Fixture.shortPIN, .one)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["uv": true], token: token)).status
                == .unsupportedOption)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], options: ["uv": true], token: token))
                .status == .unsupportedOption)
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv, "the pinAuth alone verifies the user")
    }

    @Test("CTAP 2.0 §5.2 step 5 (rk not valid for getAssertion → INVALID_OPTION) vs CTAP 2.1 §6.2.2 step 4 (rk → UNSUPPORTED_OPTION)",
          arguments: [(CardProfile.arculusFIDO2, CTAPStatus.invalidOption), (.arculusFIDO21, .unsupportedOption)])
    func getAssertionRK(profile: CardProfile, expected: CTAPStatus) throws {
        let client = try TestClient(profile: profile)
        let made = try client.makeCredential()
        for rk in [true, false] {
            let request = TestClient.getAssertionRequest(allowList: [made.id], options: ["rk": .bool(rk)])
            #expect(client.getAssertion(request).status == expected, "rk: \(rk)")
        }
    }

    @Test("CTAP 2.0 §5.2 step 5 vs CTAP 2.1 §6.2.2 step 4: getAssertion uv=true without a token → UNSUPPORTED_OPTION on 2.0, INVALID_OPTION on 2.1",
          arguments: [(CardProfile.arculusFIDO2, CTAPStatus.unsupportedOption), (.arculusFIDO21, .invalidOption)])
    func getAssertionUV(profile: CardProfile, expected: CTAPStatus) throws {
        let client = try TestClient(profile: profile)
        let made = try client.makeCredential()
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], options: ["uv": true])).status
                == expected)
    }

    @Test("CTAP 2.0 hmac-secret extension (one CredRandom per credential): the same salt gives the same output with and without UV on 2.0, different ones on 2.1 (CTAP 2.1 §12.5 CredRandomWithUV/WithoutUV)",
          arguments: [(CardProfile.arculusFIDO2, true), (.arculusFIDO21, false)])
    func oneCredRandom(profile: CardProfile, same: Bool) throws {
        let client = try TestClient(profile: profile)
        try client.setPIN(Fixture.shortPIN, .one)
        let made = try client.makeCredential(extensions: ["hmac-secret": true], token: try client.token(Fixture.shortPIN, .one))
        let withoutUV = try HMACSecretTests.output(client, try client.session(.one), credential: made.id,
                                                   salts: HMACSecretTests.salt1)
        let token = try client.token(Fixture.shortPIN, .one)
        let withUV = try HMACSecretTests.output(client, try client.session(.one), credential: made.id,
                                                salts: HMACSecretTests.salt1, token: token)
        #expect((withUV == withoutUV) == same)
        #expect(withUV.count == 32)
    }
}
