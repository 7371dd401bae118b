import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

@Suite("authenticatorMakeCredential")
struct MakeCredentialTests {
    // MARK: - Success

    @Test("non-discoverable credential: authData layout (WebAuthn §6.1) and nothing stored")
    func nonDiscoverable() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        let authData = made.authData
        #expect(authData.rpIdHash == SHA256.hash(Array(Fixture.rpID.utf8)))
        #expect(authData.flags == AuthData.userPresent | AuthData.attestedCredentialData, "UP and AT only")
        #expect(authData.counter >= 1)
        #expect(authData.aaguid == (try aaguidBytes("3f59672f-20aa-4afe-b6f4-7e5e916b6d98")))
        let length = Int(authData.raw[53]) << 8 | Int(authData.raw[54])
        #expect(length == made.id.count)
        let maxCredentialIdLength = try #require(try client.getInfo()[int: 8]?.intValue)
        #expect(made.id.count <= maxCredentialIdLength, "within getInfo maxCredentialIdLength")
        #expect(authData.extensions == nil)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
    }

    @Test("discoverable credential is stored with its user and RP")
    func discoverable() throws {
        let client = try TestClient()
        let made = try client.makeCredential(rk: true)
        let stored = try #require(client.authenticator.state.residentCredentials.first)
        #expect(client.authenticator.state.residentCredentials.count == 1)
        #expect(stored.id == made.id)
        #expect(stored.rpId == Fixture.rpID)
        #expect(stored.rpName == Fixture.rpName)
        #expect(stored.userId == Fixture.userID)
        #expect(stored.userName == Fixture.userName)
        #expect(stored.userDisplayName == Fixture.userDisplayName)
    }

    @Test("each credential gets its own key and ID, and the counter goes up")
    func distinctCredentials() throws {
        let client = try TestClient()
        let first = try client.makeCredential()
        let second = try client.makeCredential()
        #expect(first.id != second.id)
        #expect(first.publicKey != second.publicKey)
        #expect(second.authData.counter > first.authData.counter)
    }

    @Test("ES256 is chosen when the RP also lists an unsupported algorithm first")
    func algorithmChoice() throws {
        let client = try TestClient()
        let request = TestClient.makeCredentialRequest(algorithms: [-257, -7])
        let made = try MadeCredential(try client.makeCredential(request).body(), clientDataHash: Fixture.clientDataHash())
        #expect(made.authData.credentialPublicKey?[int: 3] == .int(-7))
    }

    // MARK: - Packed attestation

    @Test("packed attestation: signature, x5c chain to the root, FIDO certificate requirements")
    func packedAttestation() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        #expect(made.format == "packed")
        let statement = made.attestationStatement
        #expect(statement[text: "alg"] == .int(-7))
        let signature = try #require(statement[text: "sig"]?.bytesValue)
        let x5c = try #require(statement[text: "x5c"]?.arrayValue)
        #expect(x5c.count == 1, "the batch certificate only; the root is the verifier's trust anchor")
        let certificate = try X509Certificate(der: try #require(x5c.first?.bytesValue))
        let attestationKey = try certificate.publicKey
        #expect(attestationKey.isValidSignature(signature, for: made.authData.raw + made.clientDataHash))
        #expect(!made.publicKey.isValidSignature(signature, for: made.authData.raw + made.clientDataHash),
                "packed with x5c is signed by the attestation key, not the credential key")
        #expect(certificate.isSigned(by: try client.authenticator.attestation.rootCertificate.publicKey))
        try checkFIDOAttestationCertificate(certificate, aaguid: try #require(made.authData.aaguid))
    }

    @Test("the attestation signature covers the clientDataHash")
    func attestationCoversClientDataHash() throws {
        let client = try TestClient()
        let made = try client.makeCredential(clientDataHash: Fixture.clientDataHash("one"))
        let signature = try #require(made.attestationStatement[text: "sig"]?.bytesValue)
        let key = try client.authenticator.attestation.certificate.publicKey
        #expect(!key.isValidSignature(signature, for: made.authData.raw + Fixture.clientDataHash("two")))
    }

    // MARK: - Parameter errors

    static let parameterErrors: [Mutation] = [
        Mutation("no clientDataHash", .missingParameter) { $0[int: 1] = nil },
        Mutation("no rp", .missingParameter) { $0[int: 2] = nil },
        Mutation("no user", .missingParameter) { $0[int: 3] = nil },
        Mutation("no pubKeyCredParams", .missingParameter) { $0[int: 4] = nil },
        Mutation("rp without id", .missingParameter) { $0.editMap(2) { $0[text: "id"] = nil } },
        Mutation("user without id", .missingParameter) { $0.editMap(3) { $0[text: "id"] = nil } },
        Mutation("clientDataHash is text", .cborUnexpectedType) { $0[int: 1] = "hash" },
        Mutation("rp is text", .cborUnexpectedType) { $0[int: 2] = "example.com" },
        Mutation("user is an array", .cborUnexpectedType) { $0[int: 3] = .array([.bytes([1])]) },
        Mutation("pubKeyCredParams is a map", .cborUnexpectedType) { $0[int: 4] = .map(["alg": -7, "type": "public-key"]) },
        Mutation("rp.id is an integer", .cborUnexpectedType) { $0.editMap(2) { $0[text: "id"] = 7 } },
        Mutation("user.id is text", .cborUnexpectedType) { $0.editMap(3) { $0[text: "id"] = "alice" } },
        Mutation("user.name is bytes", .cborUnexpectedType) { $0.editMap(3) { $0[text: "name"] = .bytes([1]) } },
        Mutation("alg is text", .cborUnexpectedType) { $0[int: 4] = .array([.map(["alg": "ES256", "type": "public-key"])]) },
        Mutation("excludeList is a map", .cborUnexpectedType) { $0[int: 5] = .map(["id": .bytes([1])]) },
        Mutation("extensions is an array", .cborUnexpectedType) { $0[int: 6] = .array([]) },
        Mutation("options is an array", .cborUnexpectedType) { $0[int: 7] = .array(["rk"]) },
        Mutation("option value is an integer", .cborUnexpectedType) { $0[int: 7] = .map(["rk": 1]) },
        Mutation("pinUvAuthParam is text", .cborUnexpectedType) { $0[int: 8] = "param"; $0[int: 9] = 1 },
        Mutation("pinUvAuthProtocol is text", .cborUnexpectedType) { $0[int: 8] = .bytes([1]); $0[int: 9] = "one" },
        Mutation("only RS256 offered", .unsupportedAlgorithm) {
            $0[int: 4] = .array([.map(["alg": -257, "type": "public-key"])])
        },
        Mutation("ES256 with a type other than public-key", .unsupportedAlgorithm) {
            $0[int: 4] = .array([.map(["alg": -7, "type": "other-key"])])
        },
        Mutation("up = false", .invalidOption) { $0[int: 7] = .map(["up": false]) },
        Mutation("uv = true without built-in UV", .invalidOption) { $0[int: 7] = .map(["uv": true]) },
        Mutation("enterpriseAttestation on a card without it", .invalidParameter) { $0[int: 0x0A] = 1 },
    ]

    @Test("parameter errors", arguments: parameterErrors)
    func parameterError(mutation: Mutation) throws {
        let client = try TestClient()
        var request = TestClient.makeCredentialRequest()
        mutation.apply(&request)
        #expect(client.makeCredential(request).status == mutation.expected)
        #expect(client.authenticator.state.signatureCounter == 0, "a refused request changes nothing")
    }

    @Test("declined user presence → OPERATION_DENIED")
    func userPresenceDeclined() throws {
        let client = try TestClient()
        client.authenticator.userPresence = { false }
        #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["rk": true])).status == .operationDenied)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
    }

    // MARK: - PIN / pinUvAuthParam

    @Test("zero-length pinUvAuthParam probe: PIN_NOT_SET without a PIN, PIN_INVALID with one")
    func pinProbe() throws {
        let client = try TestClient()
        var request = TestClient.makeCredentialRequest()
        request[int: 8] = .bytes([])
        request[int: 9] = 1
        #expect(client.makeCredential(request).status == .pinNotSet)
        try client.setPIN()
        #expect(client.makeCredential(request).status == .pinInvalid)
        #expect(try client.pinRetries() == 8, "the probe is not a PIN attempt")
    }

    @Test("pinUvAuthParam without pinUvAuthProtocol → MISSING_PARAMETER")
    func paramWithoutProtocol() throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token()
        var request = TestClient.makeCredentialRequest(token: token)
        request[int: 9] = nil
        #expect(client.makeCredential(request).status == .missingParameter)
    }

    @Test("unsupported pinUvAuthProtocol → INVALID_PARAMETER (CTAP 2.1 §6.1.2 step 2); PIN_AUTH_INVALID on the CTAP 2.0 profile (CTAP 2.0 §5.1 step 7)",
          arguments: [(CardProfile.arculusFIDO21, 3, CTAPStatus.invalidParameter), (CardProfile.arculusFIDO2, 3, .pinAuthInvalid),
                      (CardProfile.arculusFIDO2, 2, .pinAuthInvalid)])
    func unsupportedProtocol(profile: CardProfile, protocolNumber: Int, status: CTAPStatus) throws {
        let client = try TestClient(profile: profile)
        try client.setPIN()
        let token = try client.token()
        var request = TestClient.makeCredentialRequest(token: token)
        request[int: 9] = .int(protocolNumber)
        #expect(client.makeCredential(request).status == status)
    }

    @Test("a pinUvAuthParam that is not authenticate(token, clientDataHash) → PIN_AUTH_INVALID", arguments: PlatformPIN.allCases)
    func wrongParam(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let token = try client.token(Fixture.shortPIN, pinProtocol)
        var request = TestClient.makeCredentialRequest(token: token)
        request[int: 8] = .bytes(token.authenticate(Fixture.clientDataHash("something else")))
        #expect(client.makeCredential(request).status == .pinAuthInvalid)
        let forged = PlatformToken(pinProtocol: pinProtocol, value: [UInt8](repeating: 0x42, count: 32))
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: forged)).status == .pinAuthInvalid)
    }

    @Test("a valid token sets UV; on CTAP 2.1 it is used up by the makeCredential", arguments: PlatformPIN.allCases)
    func tokenUse(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let token = try client.token(Fixture.shortPIN, pinProtocol)
        let made = try client.makeCredential(rk: true, token: token)
        #expect(made.authData.uv)
        #expect(made.authData.up)
        // clearPinUvAuthTokenPermissionsExceptLbw() (CTAP 2.1 §6.1.2 step 18.4).
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }

    @Test("CTAP 2.0 pinToken stays usable until power-off")
    func ctap20TokenReuse() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        try client.setPIN()
        let token = try client.token()
        _ = try client.makeCredential(token: token)
        #expect(try client.makeCredential(token: token).authData.uv)
        client.powerCycle()
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }

    @Test("PIN set, rk without pinUvAuthParam → PUAT_REQUIRED", arguments: CardProfile.builtIn)
    func residentNeedsPIN(profile: CardProfile) throws {
        let client = try TestClient(profile: profile)
        try client.setPIN()
        #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["rk": true])).status == .puatRequired)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
    }

    @Test("PIN set, non-discoverable without pinUvAuthParam: allowed with makeCredUvNotRqd (2.1), PUAT_REQUIRED on 2.0")
    func nonResidentWithPINSet() throws {
        let ctap21 = try TestClient(profile: .arculusFIDO21)
        try ctap21.setPIN()
        let made = try ctap21.makeCredential()
        #expect(!made.authData.uv)

        let ctap20 = try TestClient(profile: .arculusFIDO2)
        try ctap20.setPIN()
        #expect(ctap20.makeCredential(TestClient.makeCredentialRequest()).status == .puatRequired)
    }

    @Test("token without the mc permission → PIN_AUTH_INVALID")
    func tokenWithoutMakeCredentialPermission() throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token(permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
        let cmToken = try client.token(permissions: PermissionBit.credentialManagement)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: cmToken)).status == .pinAuthInvalid)
    }

    @Test("token bound to another RP ID → PIN_AUTH_INVALID; bound to this one → OK")
    func tokenBoundToAnotherRP() throws {
        let client = try TestClient()
        try client.setPIN()
        let other = try client.token(permissions: PermissionBit.makeCredential, rpId: Fixture.otherRpID)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: other)).status == .pinAuthInvalid)
        let same = try client.token(permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(try client.makeCredential(token: same).authData.uv)
    }

    // MARK: - excludeList

    @Test("excludeList naming a credential of this RP → CREDENTIAL_EXCLUDED", arguments: [false, true])
    func excluded(discoverable: Bool) throws {
        let client = try TestClient()
        let existing = try client.makeCredential(rk: discoverable)
        let counter = client.authenticator.state.signatureCounter
        let request = TestClient.makeCredentialRequest(excludeList: [[9, 9, 9], existing.id], options: ["rk": true])
        #expect(client.makeCredential(request).status == .credentialExcluded)
        #expect(client.authenticator.state.signatureCounter == counter)
        #expect(client.authenticator.state.residentCredentials.count == (discoverable ? 1 : 0))
    }

    @Test("excludeList with another RP's credential or a foreign ID does not exclude")
    func notExcluded() throws {
        let client = try TestClient()
        let otherRP = try client.makeCredential(rpId: Fixture.otherRpID)
        let request = TestClient.makeCredentialRequest(excludeList: [otherRP.id, [UInt8](repeating: 1, count: 81)])
        #expect(client.makeCredential(request).status == .ok)
    }

    @Test("excludeList with a credProtect=3 credential and no UV does not exclude (CTAP 2.1 §6.1.2 step 11)")
    func excludedCredProtect3NeedsUV() throws {
        let client = try TestClient()
        let protected = try client.makeCredential(extensions: ["credProtect": 3])
        #expect(client.makeCredential(TestClient.makeCredentialRequest(excludeList: [protected.id])).status == .ok)
    }

    // MARK: - Key store

    @Test("key store full → KEY_STORE_FULL; same rp.id + user.id overwrites instead")
    func keyStoreFull() throws {
        var profile = CardProfile.arculusFIDO21
        profile.residentKeyCapacity = 2
        let client = try TestClient(profile: profile)
        let first = try client.makeCredential(userId: [1], userName: "one", rk: true)
        _ = try client.makeCredential(userId: [2], rk: true)
        let full = TestClient.makeCredentialRequest(userId: [3], options: ["rk": true])
        #expect(client.makeCredential(full).status == .keyStoreFull)
        #expect(client.authenticator.state.residentCredentials.count == 2)
        #expect(try client.getInfo()[int: 0x14] == .int(0))

        // Non-discoverable credentials need no storage.
        #expect(client.makeCredential(TestClient.makeCredentialRequest(userId: [3])).status == .ok)

        // Same RP and user ID: the old credential is replaced.
        let replacement = try client.makeCredential(userId: [1], userName: "one again", rk: true)
        let stored = client.authenticator.state.residentCredentials
        #expect(stored.count == 2)
        #expect(stored.filter { $0.userId == [1] }.map(\.userName) == ["one again"])
        #expect(stored.contains { $0.id == replacement.id })
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [first.id])).status == .noCredentials)

        // Same user ID for another RP is a different credential.
        #expect(client.makeCredential(TestClient.makeCredentialRequest(rpId: Fixture.otherRpID, userId: [1],
                                                                        options: ["rk": true])).status == .keyStoreFull)
    }

    // MARK: - Extensions

    @Test("credProtect and hmac-secret outputs appear in authData extensions with the ED flag")
    func extensionOutputs() throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["credProtect": 2, "hmac-secret": true])
        #expect(made.authData.ed)
        #expect(made.authData.extensions == ["credProtect": 2, "hmac-secret": true])

        let plain = try client.makeCredential(extensions: ["credProtect": 1])
        #expect(plain.authData.extensions == ["credProtect": 1])

        let none = try client.makeCredential(extensions: ["hmac-secret": false])
        #expect(!none.authData.ed)
        #expect(none.authData.extensions == nil)
    }

    @Test("credProtect and hmac-secret of the wrong type → CBOR_UNEXPECTED_TYPE")
    func extensionTypes() throws {
        let client = try TestClient()
        for extensions: CBORMap in [["credProtect": "high"], ["hmac-secret": 1]] {
            let request = TestClient.makeCredentialRequest(extensions: extensions)
            #expect(client.makeCredential(request).status == .cborUnexpectedType, "\(extensions)")
        }
    }
}

/// The FIDO attestation certificate requirements (WebAuthn §8.2.1 for packed).
func checkFIDOAttestationCertificate(_ certificate: X509Certificate, aaguid: [UInt8],
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(certificate.version == 3, sourceLocation: sourceLocation)
    #expect(certificate.subjectDescription.contains("OU=Authenticator Attestation"),
            "subject \(certificate.subjectDescription)", sourceLocation: sourceLocation)
    #expect(certificate.subjectDescription.contains("C="), sourceLocation: sourceLocation)
    #expect(certificate.subjectDescription.contains("O="), sourceLocation: sourceLocation)
    #expect(certificate.subjectDescription.contains("CN="), sourceLocation: sourceLocation)
    #expect(!certificate.isCA, "basicConstraints CA:FALSE", sourceLocation: sourceLocation)
    let oid = "1.3.6.1.4.1.45724.1.1.4"
    #expect(certificate.extensionValue(oid: oid) == [0x04, 0x10] + aaguid, sourceLocation: sourceLocation)
    #expect(certificate.isExtensionCritical(oid: oid) == false, sourceLocation: sourceLocation)
}
