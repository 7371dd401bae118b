import ArculusCard
import CardTestSupport
import CBOR
import CTAPClient
import CardCrypto
import Testing
import FIDOWire

/// makeCredential and getAssertion against the in-process card, with PIN protocols 1 and 2.
@Suite("makeCredential and getAssertion", .timeLimit(.minutes(1)))
struct MakeCredentialTests {
    static let clientDataHash = SHA256.hash(Array("client data".utf8))

    static func request(user: UserEntity = UserEntity(id: Array("alice".utf8), name: "alice", displayName: "Alice"),
                        rpID: String = Fixture.rpID) -> MakeCredentialRequest {
        MakeCredentialRequest(clientDataHash: clientDataHash, relyingParty: RelyingPartyEntity(id: rpID, name: "Example"),
                              user: user)
    }

    /// (profile, forced protocol version or nil, expected version)
    static let pinSetups: [(String, Int?, Int)] = [
        ("arculus-fido21", nil, 2),
        ("arculus-fido21", 1, 1),
        ("fido21-protocol-1-only", nil, 1),
        ("arculus-fido2", nil, 1),
    ]

    static func profile(_ name: String) throws -> CardProfile {
        name == Fixture.protocolOneOnly.name ? Fixture.protocolOneOnly : try CardProfile.named(name)
    }

    @Test("a discoverable credential with a PIN token: packed attestation that verifies, UP and UV set",
          arguments: pinSetups)
    func register(profileName: String, forced: Int?, expected: Int) throws {
        let (client, transport) = try Fixture.clientWithPIN(try Self.profile(profileName), protocolVersion: forced)
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
        #expect(token.pinProtocol.version == expected)
        let made = try client.makeCredential(Self.request(), token: token)

        #expect(made.format == "packed")
        let data = made.authenticatorData
        #expect(data.rpIDHash == SHA256.hash(Array(Fixture.rpID.utf8)))
        #expect(data.userPresent && data.userVerified)
        #expect(data.attestedCredential?.aaguid == client.info.aaguid)
        #expect(transport.card.credentials.map(\.id) == [made.credentialID])

        let x5c = try #require(made.statement[text: "x5c"]?.arrayValue?.first?.bytesValue)
        let signature = try #require(made.statement[text: "sig"]?.bytesValue)
        #expect(made.statement[text: "alg"]?.intValue == -7)
        let attestationKey = try X509Certificate(der: x5c).publicKey
        #expect(attestationKey.isValidSignature(signature, for: data.bytes + Self.clientDataHash))

        // The WebAuthn attestation object: the same items under text keys.
        let object = try #require(try CBORDecoder.decode(made.attestationObject).mapValue)
        #expect(object[text: "fmt"] == .text("packed"))
        #expect(object[text: "authData"] == .bytes(data.bytes))
        #expect(object[text: "attStmt"] == .map(made.statement))
    }

    @Test("an assertion over an allow list verifies with the credential's key", arguments: pinSetups)
    func authenticate(profileName: String, forced: Int?, expected: Int) throws {
        let (client, _) = try Fixture.clientWithPIN(try Self.profile(profileName), protocolVersion: forced)
        let made = try client.makeCredential(Self.request(),
                                             token: try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        let token = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
        let hash = SHA256.hash(Array("another challenge".utf8))
        let assertion = try client.getAssertion(
            GetAssertionRequest(rpID: Fixture.rpID, clientDataHash: hash, allowList: [CredentialDescriptor(id: made.credentialID)]),
            token: token)
        #expect(assertion.credential.id == made.credentialID)
        #expect(assertion.authenticatorData.userVerified)
        #expect(assertion.authenticatorData.signCount > made.authenticatorData.signCount)
        let key = try #require(made.authenticatorData.attestedCredential?.publicKey.publicKey)
        #expect(key.isValidSignature(assertion.signature, for: assertion.authenticatorData.bytes + hash))
        #expect(assertion.user?.id == Array("alice".utf8))
    }

    @Test("without an allow list: every discoverable credential of the RP, through getNextAssertion")
    func discoverable() throws {
        let (client, _) = try Fixture.clientWithPIN()
        for name in ["alice", "bob", "carol"] {
            let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
            _ = try client.makeCredential(Self.request(user: UserEntity(id: Array(name.utf8), name: name, displayName: name)), token: token)
        }
        let token = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
        let assertions = try client.getAssertions(GetAssertionRequest(rpID: Fixture.rpID, clientDataHash: Self.clientDataHash), token: token)
        #expect(assertions.count == 3)
        #expect(assertions.first?.numberOfCredentials == 3)
        #expect(Set(assertions.compactMap { $0.user?.name }) == ["alice", "bob", "carol"])
    }

    @Test("a deleted credential: CTAP2_ERR_NO_CREDENTIALS (0x2E)")
    func deletedCredential() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let made = try client.makeCredential(Self.request(),
                                             token: try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        try client.deleteCredential(id: made.credentialID,
                                    token: try client.pinToken(pin: Fixture.pin, permissions: .credentialManagement))
        let token = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
        let error = Fixture.error {
            _ = try client.getAssertion(GetAssertionRequest(rpID: Fixture.rpID, clientDataHash: Self.clientDataHash,
                                                            allowList: [CredentialDescriptor(id: made.credentialID)]), token: token)
        }
        #expect(error == .ctap(CTAPError(status: .noCredentials, command: .getAssertion)))
        #expect(error?.ctapStatus?.rawValue == 0x2E)
        #expect(error?.description == "the card refused authenticatorGetAssertion: CTAP2_ERR_NO_CREDENTIALS (0x2E)")
    }

    @Test("a full card: CTAP2_ERR_KEY_STORE_FULL (0x28)")
    func keyStoreFull() throws {
        let (client, _) = try Fixture.clientWithPIN(Fixture.capacityOne)
        _ = try client.makeCredential(Self.request(),
                                      token: try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
        let error = Fixture.error {
            _ = try client.makeCredential(Self.request(user: UserEntity(id: [2], name: "bob")), token: token)
        }
        #expect(error == .ctap(CTAPError(status: .keyStoreFull, command: .makeCredential)))
    }

    @Test("a token bound to one RP is refused for another: CTAP2_ERR_PIN_AUTH_INVALID (0x33)")
    func wrongRP() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: "other.example")
        #expect(Fixture.ctapStatus { _ = try client.makeCredential(Self.request(), token: token) } == .pinAuthInvalid)
    }

    @Test("the mc permission is used up by one makeCredential")
    func permissionUsedUp() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
        _ = try client.makeCredential(Self.request(), token: token)
        #expect(Fixture.ctapStatus {
            _ = try client.makeCredential(Self.request(user: UserEntity(id: [9], name: "bob")), token: token)
        } == .pinAuthInvalid)
    }
}
