import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import TestSupport

@Suite("credProtect (CTAP 2.1 §12.1)")
struct CredProtectTests {
    @Test("level 3 is invisible without UV, with or without an allowList; visible with UV")
    func level3() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential(rk: true, extensions: ["credProtect": 3], token: try client.token())
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .noCredentials)
        #expect(client.getAssertion(TestClient.getAssertionRequest()).status == .noCredentials)
        let assertion = try client.assert(allowList: [made.id], token: try client.token())
        #expect(assertion.credentialId == made.id)
        #expect(assertion.verifies(with: made.publicKey))
        #expect(try client.assert(token: try client.token()).credentialId == made.id)
    }

    @Test("level 2 is invisible to a discoverable lookup without UV but usable with an allowList")
    func level2() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential(rk: true, extensions: ["credProtect": 2], token: try client.token())
        #expect(client.getAssertion(TestClient.getAssertionRequest()).status == .noCredentials)
        let withList = try client.assert(allowList: [made.id])
        #expect(withList.credentialId == made.id)
        #expect(!withList.authData.uv)
        #expect(try client.assert(token: try client.token()).credentialId == made.id)
    }

    @Test("level 1 is found without UV; a protected credential is skipped, not counted")
    func mixedLevels() throws {
        let client = try TestClient()
        let open = try client.makeCredential(userId: [1], rk: true, extensions: ["credProtect": 1])
        _ = try client.makeCredential(userId: [2], rk: true, extensions: ["credProtect": 2])
        let assertion = try client.assert()
        #expect(assertion.credentialId == open.id)
        #expect(assertion.numberOfCredentials == nil)
    }

    @Test("level 3 on a non-discoverable credential needs UV too")
    func level3NonDiscoverable() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential(extensions: ["credProtect": 3])
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .noCredentials)
        #expect(try client.assert(allowList: [made.id], token: try client.token()).authData.uv)
    }
}

@Suite("hmac-secret (CTAP 2.1 §12.5)")
struct HMACSecretTests {
    /// The getAssertion hmac-secret input for `salts` under `session`.
    static func input(_ session: PlatformSession, salts: [UInt8]) throws -> CBORValue {
        let saltEnc = try session.encrypt(salts)
        return .map([
            .int(1): session.platformKey, .int(2): .bytes(saltEnc),
            .int(3): .bytes(session.authenticate(saltEnc)), .int(4): .int(session.pinProtocol.rawValue),
        ])
    }

    /// Runs an assertion with the hmac-secret extension and returns the decrypted output.
    static func output(_ client: TestClient, _ session: PlatformSession, credential: [UInt8], salts: [UInt8],
                       token: PlatformToken? = nil) throws -> [UInt8] {
        let assertion = try client.assert(allowList: [credential], extensions: ["hmac-secret": try input(session, salts: salts)],
                                          token: token)
        #expect(assertion.authData.ed)
        let encrypted = try #require(assertion.authData.extensions?[text: "hmac-secret"]?.bytesValue)
        #expect(assertion.authData.extensions?.count == 1)
        return try session.decrypt(encrypted)
    }

    static let salt1 = SHA256.hash(Array("salt one".utf8))
    static let salt2 = SHA256.hash(Array("salt two".utf8))

    @Test("outputs are stable per salt, concatenate for two salts, and differ per salt and per UV", arguments: PlatformPIN.allCases)
    func outputs(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)

        let first = try Self.output(client, session, credential: made.id, salts: Self.salt1)
        #expect(first.count == 32)
        let again = try Self.output(client, session, credential: made.id, salts: Self.salt1)
        #expect(again == first, "the same salt gives the same output")
        let other = try Self.output(client, session, credential: made.id, salts: Self.salt2)
        #expect(other != first)
        let both = try Self.output(client, session, credential: made.id, salts: Self.salt1 + Self.salt2)
        #expect(both == first + other, "output1 ‖ output2 for salt1 ‖ salt2")

        let token = try client.token(Fixture.shortPIN, pinProtocol)
        let verifiedSession = try client.session(pinProtocol)
        let withUV = try Self.output(client, verifiedSession, credential: made.id, salts: Self.salt1, token: token)
        #expect(withUV.count == 32)
        #expect(withUV != first, "CredRandomWithUV differs from CredRandomWithoutUV")
    }

    @Test("a new platform key agreement gives the same output for the same salt", arguments: PlatformPIN.allCases)
    func independentOfSession(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let first = try Self.output(client, try client.session(pinProtocol), credential: made.id, salts: Self.salt1)
        client.powerCycle()
        let second = try Self.output(client, try client.session(pinProtocol), credential: made.id, salts: Self.salt1)
        #expect(first == second)
    }

    @Test("outputs differ between credentials")
    func perCredential() throws {
        let client = try TestClient()
        let a = try client.makeCredential(userId: [1], extensions: ["hmac-secret": true])
        let b = try client.makeCredential(userId: [2], extensions: ["hmac-secret": true])
        let session = try client.session(.two)
        #expect(try Self.output(client, session, credential: a.id, salts: Self.salt1)
                != (try Self.output(client, session, credential: b.id, salts: Self.salt1)))
    }

    @Test("salt of 48 bytes → INVALID_PARAMETER (§12.5: \"not 32 or 64 bytes long, return CTAP1_ERR_INVALID_PARAMETER\")", arguments: PlatformPIN.allCases)
    func saltLength(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)
        let request = TestClient.getAssertionRequest(
            allowList: [made.id], extensions: ["hmac-secret": try Self.input(session, salts: [UInt8](repeating: 7, count: 48))])
        #expect(client.getAssertion(request).status == .invalidParameter)
    }

    @Test("wrong saltAuth → PIN_AUTH_INVALID", arguments: PlatformPIN.allCases)
    func wrongSaltAuth(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)
        guard case .map(var input) = try Self.input(session, salts: Self.salt1) else { return }
        input[int: 3] = .bytes(session.authenticate(Self.salt2))
        let request = TestClient.getAssertionRequest(allowList: [made.id], extensions: ["hmac-secret": .map(input)])
        #expect(client.getAssertion(request).status == .pinAuthInvalid)
    }

    @Test("hmac-secret input without saltAuth, saltEnc or keyAgreement → MISSING_PARAMETER", arguments: [1, 2, 3])
    func missingInput(key: Int) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        guard case .map(var input) = try Self.input(try client.session(.two), salts: Self.salt1) else { return }
        input[int: key] = nil
        let request = TestClient.getAssertionRequest(allowList: [made.id], extensions: ["hmac-secret": .map(input)])
        #expect(client.getAssertion(request).status == .missingParameter)
    }

    @Test("a credential made without hmac-secret gives no output")
    func notEnabled() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        let session = try client.session(.one)
        let assertion = try client.assert(allowList: [made.id],
                                          extensions: ["hmac-secret": try Self.input(session, salts: Self.salt1)])
        #expect(!assertion.authData.ed)
        #expect(assertion.authData.extensions == nil)
    }
}
