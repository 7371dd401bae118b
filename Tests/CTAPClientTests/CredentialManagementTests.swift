import ArculusCard
import CardTestSupport
import CTAPClient
import Testing

/// credentialManagement and reset from the platform side.
@Suite("credentialManagement and reset", .timeLimit(.minutes(1)))
struct CredentialManagementTests {
    static func register(_ client: CTAPClient, _ name: String, rpID: String = Fixture.rpID) throws -> [UInt8] {
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: rpID)
        return try client.makeCredential(
            MakeCredentialTests.request(user: UserEntity(id: Array(name.utf8), name: name, displayName: name), rpID: rpID),
            token: token).credentialID
    }

    @Test("metadata, enumeration by RP, and deletion by credential ID", arguments: [nil, 1] as [Int?])
    func enumerateAndDelete(version: Int?) throws {
        let (client, transport) = try Fixture.clientWithPIN(protocolVersion: version)
        let alice = try Self.register(client, "alice")
        let bob = try Self.register(client, "bob")
        let other = try Self.register(client, "carol", rpID: "other.example")

        let token = try client.pinToken(pin: Fixture.pin, permissions: .credentialManagement)
        #expect(try client.credentialsMetadata(token: token) == (3, 47))
        #expect(try client.relyingParties(token: token).map(\.id).sorted() == ["example.com", "other.example"])
        let listed = try client.credentials(of: RelyingPartyEntity(id: Fixture.rpID), token: token)
        #expect(Set(listed.map(\.credential.id)) == [alice, bob])
        #expect(Set(listed.compactMap(\.user.name)) == ["alice", "bob"])
        #expect(try client.allCredentials(token: token).count == 3)

        try client.deleteCredential(id: bob, token: token)
        #expect(transport.card.credentials.map(\.id) == [alice, other])
        #expect(try client.credentials(of: RelyingPartyEntity(id: Fixture.rpID), token: token).map(\.credential.id) == [alice])
        #expect(try client.credentials(of: RelyingPartyEntity(id: "nobody.example"), token: token).isEmpty)
    }

    @Test("deleting a credential the card does not hold: CTAP2_ERR_NO_CREDENTIALS")
    func deleteUnknown() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .credentialManagement)
        let error = Fixture.error { try client.deleteCredential(id: Array(repeating: 1, count: 81), token: token) }
        #expect(error == .ctap(CTAPError(status: .noCredentials, command: .credentialManagement, subcommand: "deleteCredential")))
    }

    @Test("an empty card lists no RPs")
    func emptyCard() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .credentialManagement)
        #expect(try client.relyingParties(token: token).isEmpty)
    }

    @Test("a token without cm: CTAP2_ERR_PIN_AUTH_INVALID")
    func withoutPermission() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
        #expect(Fixture.ctapStatus { _ = try client.credentialsMetadata(token: token) } == .pinAuthInvalid)
    }

    @Test("a card without credential management: unsupported, nothing sent")
    func unsupported() throws {
        let (client, _) = try Fixture.clientWithPIN(try CardProfile.named("arculus-fido2"))
        let token = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
        #expect(Fixture.error { try client.deleteCredential(id: [1], token: token) }
            == .unsupported("the card has no credential management (getInfo option credMgmt is absent)"))
    }

    @Test("reset erases credentials and the PIN")
    func reset() throws {
        let (client, transport) = try Fixture.clientWithPIN()
        _ = try Self.register(client, "alice")
        try client.reset()
        #expect(transport.card.credentials.isEmpty)
        #expect(client.info.isPINSet == false)
    }

    @Test("reset after the window: CTAP2_ERR_NOT_ALLOWED")
    func resetLate() throws {
        let (client, transport) = try Fixture.clientWithPIN()
        let start = transport.card.clock()
        transport.card.clock = { start.advanced(by: .seconds(11)) }
        #expect(Fixture.error { try client.reset() } == .ctap(CTAPError(status: .notAllowed, command: .reset)))
    }
}
