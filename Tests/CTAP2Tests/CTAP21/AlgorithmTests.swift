import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// Credential algorithms (CTAP 2.1 §6.1.2 step 3, pubKeyCredParams; getInfo algorithms 0x0A) on
/// the reference card, which offers ES256, EdDSA, ES384, ES512, ES256K, RS256 and PS256.
@Suite("Credential algorithms")
struct AlgorithmTests {
    static let all = [-7, -8, -35, -36, -47, -257, -37]

    /// A makeCredential for `algorithms`, parsed without assuming ES256.
    static func make(_ client: TestClient, algorithms: [Int], rk: Bool = false,
                     userId: [UInt8] = Fixture.userID) throws -> (authData: AuthData, key: CredentialPublicKey, body: CBORMap) {
        let request = TestClient.makeCredentialRequest(userId: userId, algorithms: algorithms, options: rk ? ["rk": true] : nil)
        let body = try client.makeCredential(request).body()
        let authData = try AuthData(try #require(body[int: 2]?.bytesValue))
        return (authData, try credentialPublicKey(try #require(authData.credentialPublicKey)), body)
    }

    @Test("CTAP 2.1 §6.4: the reference card lists its algorithms in getInfo (0x0A); arculus-fido21 ES256 only")
    func getInfo() throws {
        let reference = try TestClient(profile: .reference)
        #expect(try reference.getInfo()[int: 0x0A] == .array(Self.all.map { .map(["alg": .int($0), "type": "public-key"]) }))
        #expect(try TestClient().getInfo()[int: 0x0A] == .array([.map(["alg": -7, "type": "public-key"])]))
    }

    @Test("CTAP 2.1 §6.1.2 steps 3 and 16: a credential of each algorithm; the COSE key says the algorithm; the packed attestation and a getAssertion signature verify",
          arguments: all)
    func eachAlgorithm(algorithm: Int) throws {
        let client = try TestClient(profile: .reference)
        let (authData, key, body) = try Self.make(client, algorithms: [algorithm])
        #expect(key.algorithm.rawValue == algorithm)
        #expect(authData.credentialPublicKey?[int: 3] == .int(algorithm))
        let statement = try #require(body[int: 3]?.mapValue)
        #expect(statement[text: "alg"] == -7, "the batch attestation key is ES256 whatever the credential")
        let signature = try #require(statement[text: "sig"]?.bytesValue)
        #expect(try client.authenticator.attestation.certificate.publicKey
            .isValidSignature(signature, for: authData.raw + Fixture.clientDataHash()))

        let id = try #require(authData.credentialId)
        let assertion = try client.assert(allowList: [id])
        #expect(key.isValidSignature(assertion.signature, for: assertion.authData.raw + assertion.clientDataHash))
        #expect(!key.isValidSignature(assertion.signature, for: assertion.authData.raw + Fixture.clientDataHash("other")))
    }

    @Test("CTAP 2.1 §6.1.2 step 3: a discoverable credential of each algorithm signs, and credential management shows the same COSE key",
          arguments: all)
    func discoverable(algorithm: Int) throws {
        let client = try TestClient(profile: .reference)
        let (authData, key, _) = try Self.make(client, algorithms: [algorithm], rk: true)
        #expect(client.authenticator.state.residentCredentials.first?.algorithm == algorithm)
        let assertion = try client.assert()
        #expect(assertion.credentialId == authData.credentialId)
        #expect(key.isValidSignature(assertion.signature, for: assertion.authData.raw + assertion.clientDataHash))
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let entry = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                    token: token).body()
        #expect(entry[int: 8] == authData.credentialPublicKey.map { .map($0) })
    }

    @Test("CTAP 2.1 §6.1.2 step 3: the first algorithm in the RP's list that the card has is used",
          arguments: [([-36, -7], -36), ([-999, -257, -8], -257), ([-8, -7], -8)])
    func firstSupported(algorithms: [Int], expected: Int) throws {
        let client = try TestClient(profile: .reference)
        #expect(try Self.make(client, algorithms: algorithms).key.algorithm.rawValue == expected)
    }

    @Test("CTAP 2.1 §6.1.2 step 3: only algorithms the profile lists: none of them → UNSUPPORTED_ALGORITHM; arculus-fido21 (ES256 only) refuses EdDSA alone and picks ES256 from [-8, -7]")
    func unsupported() throws {
        let reference = try TestClient(profile: .reference)
        #expect(reference.makeCredential(TestClient.makeCredentialRequest(algorithms: [-65535, -999])).status == .unsupportedAlgorithm)
        let fido21 = try TestClient()
        for algorithm in Self.all.dropFirst() {
            #expect(fido21.makeCredential(TestClient.makeCredentialRequest(algorithms: [algorithm])).status == .unsupportedAlgorithm,
                    "alg \(algorithm)")
        }
        #expect(try Self.make(fido21, algorithms: [-8, -7]).key.algorithm == .es256)
        var es256Only = CardProfile.reference
        es256Only.algorithms = [-7, -35]
        let narrowed = try TestClient(profile: es256Only)
        #expect(narrowed.makeCredential(TestClient.makeCredentialRequest(algorithms: [-8])).status == .unsupportedAlgorithm)
    }

    @Test("CTAP 2.1 §6.1.2 step 3: entries of another type than public-key are skipped")
    func otherType() throws {
        let client = try TestClient(profile: .reference)
        var request = TestClient.makeCredentialRequest()
        request[int: 4] = .array([.map(["alg": -8, "type": "secret-key"]), .map(["alg": -35, "type": "public-key"])])
        let authData = try AuthData(try #require(try client.makeCredential(request).body()[int: 2]?.bytesValue))
        #expect(authData.credentialPublicKey?[int: 3] == .int(-35))
        request[int: 4] = .array([.map(["alg": -8, "type": "secret-key"])])
        #expect(client.makeCredential(request).status == .unsupportedAlgorithm)
    }

    @Test("U2F works only with ES256 credentials: an EdDSA credential ID as a U2F key handle → wrong data")
    func u2fOnlyES256() throws {
        let client = try TestClient(profile: .reference)
        let id = try #require(try Self.make(client, algorithms: [-8]).authData.credentialId)
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        #expect(client.authenticator.u2fAuthenticate(control: 0x03, challenge: U2FTests.challenge, application: application,
                                                     keyHandle: id) == .wrongData)
    }
}
