import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import TestSupport

/// credentialManagement subcommand numbers (CTAP 2.1 §6.8).
enum CM {
    static let getCredsMetadata: UInt64 = 0x01
    static let enumerateRPsBegin: UInt64 = 0x02
    static let enumerateRPsGetNextRP: UInt64 = 0x03
    static let enumerateCredentialsBegin: UInt64 = 0x04
    static let enumerateCredentialsGetNextCredential: UInt64 = 0x05
    static let deleteCredential: UInt64 = 0x06
    static let updateUserInformation: UInt64 = 0x07
}

@Suite("authenticatorCredentialManagement (CTAP 2.1 §6.8)")
struct CredentialManagementTests {
    /// A 2.1 card with a PIN, two credentials for example.com, one for other.example and one
    /// non-discoverable credential.
    struct Setup {
        let client: TestClient
        let alice: MadeCredential
        let bob: MadeCredential
        let other: MadeCredential

        init(pinProtocol: PlatformPIN = .two) throws {
            client = try TestClient()
            try client.setPIN(Fixture.shortPIN, pinProtocol)
            alice = try client.makeCredential(userId: [1], userName: "alice", displayName: "Alice", rk: true,
                                              extensions: ["credProtect": 2], token: try client.token(Fixture.shortPIN, pinProtocol))
            bob = try client.makeCredential(userId: [2], userName: "bob", displayName: "Bob", rk: true,
                                            token: try client.token(Fixture.shortPIN, pinProtocol))
            other = try client.makeCredential(rpId: Fixture.otherRpID, userId: [3], userName: "carol", displayName: nil,
                                              rk: true, token: try client.token(Fixture.shortPIN, pinProtocol))
            _ = try client.makeCredential()
        }

        func cmToken(_ pinProtocol: PlatformPIN = .two, rpId: String? = nil) throws -> PlatformToken {
            try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.credentialManagement, rpId: rpId)
        }
    }

    static func rpIdHashParameters(_ rpId: String) -> CBORMap {
        [.int(1): .bytes(SHA256.hash(Array(rpId.utf8)))]
    }

    @Test("getCredsMetadata counts discoverable credentials and the room left", arguments: PlatformPIN.allCases)
    func metadata(pinProtocol: PlatformPIN) throws {
        let setup = try Setup(pinProtocol: pinProtocol)
        let token = try setup.cmToken(pinProtocol)
        let body = try setup.client.credentialManagement(CM.getCredsMetadata, token: token).body()
        #expect(body[int: 1] == .int(3))
        #expect(body[int: 2] == .int(CardProfile.arculusFIDO21.residentKeyCapacity - 3))
    }

    @Test("enumerateRPs begin/next lists each RP once, then NOT_ALLOWED")
    func enumerateRPs() throws {
        let setup = try Setup()
        let client = setup.client
        let token = try setup.cmToken()
        let first = try client.credentialManagement(CM.enumerateRPsBegin, token: token).body()
        #expect(first[int: 5] == .int(2), "totalRPs")
        let second = try client.credentialManagement(CM.enumerateRPsGetNextRP, token: nil).body()
        #expect(second[int: 5] == nil)
        var seen: [String] = []
        for entry in [first, second] {
            let rp = try #require(entry[int: 3]?.mapValue)
            let id = try #require(rp[text: "id"]?.textValue)
            #expect(entry[int: 4] == .bytes(SHA256.hash(Array(id.utf8))), "rpIDHash")
            seen.append(id)
        }
        #expect(Set(seen) == [Fixture.rpID, Fixture.otherRpID])
        #expect(seen.count == 2)
        #expect(client.credentialManagement(CM.enumerateRPsGetNextRP, token: nil).status == .notAllowed)
    }

    @Test("enumerateRPsBegin with no discoverable credentials → NO_CREDENTIALS")
    func enumerateRPsEmpty() throws {
        let client = try TestClient()
        try client.setPIN()
        _ = try client.makeCredential()
        let token = try client.token(permissions: PermissionBit.credentialManagement)
        #expect(client.credentialManagement(CM.enumerateRPsBegin, token: token).status == .noCredentials)
        #expect(try client.credentialManagement(CM.getCredsMetadata, token: token).body()[int: 1] == .int(0))
    }

    @Test("enumerateCredentials begin/next: user, descriptor, public key, credProtect, then NOT_ALLOWED")
    func enumerateCredentials() throws {
        let setup = try Setup()
        let client = setup.client
        let token = try setup.cmToken()
        let first = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: Self.rpIdHashParameters(Fixture.rpID), token: token).body()
        #expect(first[int: 9] == .int(2), "totalCredentials")
        let second = try client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).body()
        #expect(second[int: 9] == nil)
        #expect(client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).status == .notAllowed)

        var byUser: [[UInt8]: CBORMap] = [:]
        for entry in [first, second] {
            let user = try #require(entry[int: 6]?.mapValue)
            byUser[try #require(user[text: "id"]?.bytesValue)] = entry
        }
        let alice = try #require(byUser[[1]])
        #expect(alice[int: 6] == ["id": .bytes([1]), "name": "alice", "displayName": "Alice"])
        #expect(alice[int: 7] == TestClient.descriptor(setup.alice.id))
        #expect(try es256PublicKey(try #require(alice[int: 8]?.mapValue)) == setup.alice.publicKey)
        #expect(alice[int: 0x0A] == .int(2))
        let bob = try #require(byUser[[2]])
        #expect(bob[int: 7] == TestClient.descriptor(setup.bob.id))
        #expect(try es256PublicKey(try #require(bob[int: 8]?.mapValue)) == setup.bob.publicKey)
        #expect(bob[int: 0x0A] == .int(1))
    }

    @Test("enumerateCredentialsBegin: no rpIDHash → MISSING_PARAMETER; unknown RP → NO_CREDENTIALS")
    func enumerateCredentialsErrors() throws {
        let setup = try Setup()
        let token = try setup.cmToken()
        #expect(setup.client.credentialManagement(CM.enumerateCredentialsBegin, token: token).status == .missingParameter)
        #expect(setup.client.credentialManagement(CM.enumerateCredentialsBegin, parameters: [.int(2): 1],
                                                  token: token).status == .missingParameter)
        #expect(setup.client.credentialManagement(CM.enumerateCredentialsBegin,
                                                  parameters: Self.rpIdHashParameters("nobody.example"),
                                                  token: token).status == .noCredentials)
    }

    @Test("next without begin → NOT_ALLOWED; another command in between ends the enumeration")
    func nextWithoutBegin() throws {
        let setup = try Setup()
        let client = setup.client
        #expect(client.credentialManagement(CM.enumerateRPsGetNextRP, token: nil).status == .notAllowed)
        #expect(client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).status == .notAllowed)
        let token = try setup.cmToken()
        _ = try client.credentialManagement(CM.enumerateRPsBegin, token: token).body()
        _ = try client.getInfo()
        #expect(client.credentialManagement(CM.enumerateRPsGetNextRP, token: nil).status == .notAllowed)
        _ = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                            parameters: Self.rpIdHashParameters(Fixture.rpID), token: token).body()
        _ = try client.credentialManagement(CM.getCredsMetadata, token: token).body()
        #expect(client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).status == .notAllowed)
    }

    @Test("deleteCredential removes exactly that credential; deleting it again → NO_CREDENTIALS")
    func delete() throws {
        let setup = try Setup()
        let client = setup.client
        let parameters: CBORMap = [.int(2): TestClient.descriptor(setup.bob.id)]
        // Asserted once first: the card has opened (and keeps, until power-off) Bob's ID. The
        // token comes after: presence uses up the token in use.
        #expect(try client.assert(allowList: [setup.bob.id]).credentialId == setup.bob.id)
        let token = try setup.cmToken()
        #expect(client.credentialManagement(CM.deleteCredential, parameters: parameters, token: token).status == .ok)
        #expect(try client.credentialManagement(CM.getCredsMetadata, token: token).body()[int: 1] == .int(2))
        #expect(!client.authenticator.state.residentCredentials.contains { $0.id == setup.bob.id })
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [setup.bob.id])).status == .noCredentials)
        #expect(try client.assert(allowList: [setup.alice.id]).credentialId == setup.alice.id)
        // That assertion collected user presence, which took the cm permission from the token in
        // use (CTAP 2.1 §6.2.2 step 9.4): the second delete needs a new one.
        #expect(client.credentialManagement(CM.deleteCredential, parameters: parameters, token: token).status == .pinAuthInvalid)
        #expect(client.credentialManagement(CM.deleteCredential, parameters: parameters,
                                            token: try setup.cmToken()).status == .noCredentials)
    }

    @Test("deleteCredential of an unknown or non-discoverable ID → NO_CREDENTIALS; no ID → MISSING_PARAMETER")
    func deleteUnknown() throws {
        let setup = try Setup()
        let client = setup.client
        let nonDiscoverable = try client.makeCredential()
        let token = try setup.cmToken()  // after the makeCredential, which uses up a token in use
        for id in [[UInt8](repeating: 5, count: 81), nonDiscoverable.id] {
            #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(id)],
                                                token: token).status == .noCredentials)
        }
        #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(1): 1], token: token).status
                == .missingParameter)
        #expect(client.authenticator.state.residentCredentials.count == 3)
    }

    @Test("updateUserInformation replaces name and displayName; another user id → INVALID_PARAMETER")
    func updateUser() throws {
        let setup = try Setup()
        let client = setup.client
        let token = try setup.cmToken()
        let update: CBORMap = [.int(2): TestClient.descriptor(setup.bob.id),
                               .int(3): .map(["id": .bytes([2]), "name": "robert", "displayName": "Robert"])]
        #expect(client.credentialManagement(CM.updateUserInformation, parameters: update, token: token).status == .ok)
        let stored = try #require(client.authenticator.state.residentCredentials.first { $0.id == setup.bob.id })
        #expect(stored.userName == "robert")
        #expect(stored.userDisplayName == "Robert")

        let dropDisplayName: CBORMap = [.int(2): TestClient.descriptor(setup.bob.id), .int(3): .map(["id": .bytes([2]), "name": "rob"])]
        #expect(client.credentialManagement(CM.updateUserInformation, parameters: dropDisplayName, token: token).status == .ok)
        let updated = try #require(client.authenticator.state.residentCredentials.first { $0.id == setup.bob.id })
        #expect(updated.userName == "rob")
        #expect(updated.userDisplayName == nil, "a field left out is removed")

        let mismatch: CBORMap = [.int(2): TestClient.descriptor(setup.bob.id),
                                 .int(3): .map(["id": .bytes([1]), "name": "mallory"])]
        #expect(client.credentialManagement(CM.updateUserInformation, parameters: mismatch, token: token).status
                == .invalidParameter)
        #expect(client.authenticator.state.residentCredentials.first { $0.id == setup.bob.id }?.userName == "rob")
    }

    @Test("authenticated subcommands without pinUvAuthParam → PUAT_REQUIRED",
          arguments: [CM.getCredsMetadata, CM.enumerateRPsBegin, CM.enumerateCredentialsBegin, CM.deleteCredential,
                      CM.updateUserInformation])
    func puatRequired(subCommand: UInt64) throws {
        let setup = try Setup()
        let parameters: CBORMap = [.int(1): .bytes(SHA256.hash(Array(Fixture.rpID.utf8))),
                                   .int(2): TestClient.descriptor(setup.bob.id)]
        let reply = setup.client.credentialManagement(subCommand, parameters: parameters, token: nil)
        #expect(reply.status == .puatRequired)
        #expect(setup.client.authenticator.state.residentCredentials.count == 3)
    }

    @Test("pinUvAuthParam errors: no cm permission, wrong MAC, missing or unsupported protocol")
    func authenticationErrors() throws {
        let setup = try Setup()
        let client = setup.client
        let mcGaToken = try client.token(Fixture.shortPIN, .two)
        #expect(client.credentialManagement(CM.getCredsMetadata, token: mcGaToken).status == .pinAuthInvalid)

        let token = try setup.cmToken()
        var request = TestClient.credentialManagementRequest(CM.getCredsMetadata, token: token)
        request[int: 4] = .bytes(token.authenticate([UInt8(CM.enumerateRPsBegin)]))
        #expect(client.send(CTAPByte.credentialManagement, request).status == .pinAuthInvalid, "MAC over another subcommand")

        // The MAC covers subCommandParams: changing them after authenticating fails.
        request = TestClient.credentialManagementRequest(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(setup.bob.id)],
                                                         token: token)
        request[int: 2] = .map([.int(2): TestClient.descriptor(setup.alice.id)])
        #expect(client.send(CTAPByte.credentialManagement, request).status == .pinAuthInvalid)
        #expect(client.authenticator.state.residentCredentials.count == 3)

        request = TestClient.credentialManagementRequest(CM.getCredsMetadata, token: token)
        request[int: 3] = nil
        #expect(client.send(CTAPByte.credentialManagement, request).status == .missingParameter)
        request[int: 3] = 3
        #expect(client.send(CTAPByte.credentialManagement, request).status == .invalidParameter)

        #expect(client.credentialManagement(CM.getCredsMetadata, token: token).status == .ok, "the cm token is still good")
    }

    @Test("a cm token bound to an RP ID only manages that RP's credentials")
    func rpBoundToken() throws {
        let setup = try Setup()
        let client = setup.client
        let token = try setup.cmToken(rpId: Fixture.rpID)
        #expect(client.credentialManagement(CM.getCredsMetadata, token: token).status == .pinAuthInvalid)
        #expect(client.credentialManagement(CM.enumerateRPsBegin, token: token).status == .pinAuthInvalid)
        #expect(client.credentialManagement(CM.enumerateCredentialsBegin, parameters: Self.rpIdHashParameters(Fixture.rpID),
                                            token: token).status == .ok)
        #expect(client.credentialManagement(CM.enumerateCredentialsBegin,
                                            parameters: Self.rpIdHashParameters(Fixture.otherRpID),
                                            token: token).status == .pinAuthInvalid)
        #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(setup.other.id)],
                                            token: token).status == .pinAuthInvalid)
        #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(setup.bob.id)],
                                            token: token).status == .ok)
    }

    @Test("unknown subcommand → INVALID_SUBCOMMAND; no subcommand → MISSING_PARAMETER")
    func unknownSubcommand() throws {
        let setup = try Setup()
        let token = try setup.cmToken()
        #expect(setup.client.credentialManagement(0x08, token: token).status == .invalidSubcommand)
        #expect(setup.client.send(CTAPByte.credentialManagement, [.int(3): 2]).status == .missingParameter)
    }

    @Test("credentialManagement does not exist on the CTAP 2.0 card → INVALID_COMMAND")
    func ctap20() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        try client.setPIN()
        let token = try client.token()
        #expect(client.credentialManagement(CM.getCredsMetadata, token: token).status == .invalidCommand)
        #expect(client.credentialManagement(CM.getCredsMetadata, token: nil).status == .invalidCommand)
    }
}
