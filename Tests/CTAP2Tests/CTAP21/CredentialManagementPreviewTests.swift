import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// authenticatorCredentialManagement as FIDO_2_1_PRE numbers it (0x41, getInfo option
/// credentialMgmtPreview): the same subcommands as 0x0A (CTAP 2.1 §6.8) but updateUserInformation,
/// which the preview did not have; and the preview knew no permissions, so a getPinToken token
/// serves it.
@Suite("credentialManagementPreview (0x41, FIDO_2_1_PRE)")
struct CredentialManagementPreviewTests {
    /// The reference card with a PIN and two discoverable credentials of example.com, one of other.example.
    static func card() throws -> (TestClient, [MadeCredential]) {
        let client = try TestClient(profile: .reference)
        let made = [
            try client.makeCredential(userId: [1], userName: "alice", rk: true),
            try client.makeCredential(userId: [2], userName: "bob", rk: true),
            try client.makeCredential(rpId: Fixture.otherRpID, userId: [3], rk: true),
        ]
        try client.setPIN()
        return (client, made)
    }

    @Test("FIDO_2_1_PRE: getInfo lists FIDO_2_1_PRE and option credentialMgmtPreview on the reference card; arculus-fido21 has neither and answers 0x41 INVALID_COMMAND")
    func advertised() throws {
        let reference = try TestClient(profile: .reference)
        #expect(try reference.getInfo()[int: 1]?.arrayValue?.contains("FIDO_2_1_PRE") == true)
        #expect(try reference.getInfo()[int: 4]?.mapValue?[text: "credentialMgmtPreview"] == true)
        let fido21 = try TestClient()
        try fido21.setPIN()
        #expect(try fido21.getInfo()[int: 1]?.arrayValue?.contains("FIDO_2_1_PRE") == false)
        #expect(try fido21.getInfo()[int: 4]?.mapValue?[text: "credentialMgmtPreview"] == nil)
        let token = try fido21.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        #expect(fido21.credentialManagement(CTAPByte.credentialManagementPreview, CM.getCredsMetadata, token: token).status
                == .invalidCommand)
        #expect(fido21.sendRaw([CTAPByte.credentialManagementPreview]).status == .invalidCommand)
    }

    @Test("CTAP 2.1 §6.8.2–§6.8.4 as 0x41: getCredsMetadata, enumerateRPs and enumerateCredentials answer exactly as 0x0A does",
          arguments: PlatformPIN.allCases)
    func sameAnswers(pinProtocol: PlatformPIN) throws {
        let (client, _) = try Self.card()
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.credentialManagement)
        func run(_ command: UInt8) throws -> [CBORMap] {
            var answers = [try client.credentialManagement(command, CM.getCredsMetadata, token: token).body()]
            answers.append(try client.credentialManagement(command, CM.enumerateRPsBegin, token: token).body())
            answers.append(try client.credentialManagement(command, CM.enumerateRPsGetNextRP, token: nil).body())
            answers.append(try client.credentialManagement(command, CM.enumerateCredentialsBegin,
                                                           parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                           token: token).body())
            answers.append(try client.credentialManagement(command, CM.enumerateCredentialsGetNextCredential, token: nil).body())
            #expect(client.credentialManagement(command, CM.enumerateCredentialsGetNextCredential, token: nil).status == .notAllowed)
            return answers
        }
        let preview = try run(CTAPByte.credentialManagementPreview)
        #expect(preview == (try run(CTAPByte.credentialManagement)))
        #expect(preview[0][int: 1] == .int(3))
        #expect(preview[1][int: 5] == .int(2), "totalRPs")
        #expect(preview[3][int: 9] == .int(2), "totalCredentials")
    }

    @Test("CTAP 2.1 §6.8.5 as 0x41: deleteCredential removes the credential")
    func delete() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        #expect(client.credentialManagement(CTAPByte.credentialManagementPreview, CM.deleteCredential,
                                            parameters: [.int(2): TestClient.descriptor(made[1].id)], token: token).status == .ok)
        #expect(client.authenticator.state.residentCredentials.map(\.id) == [made[0].id, made[2].id])
    }

    @Test("FIDO_2_1_PRE has no updateUserInformation: as 0x41 → INVALID_SUBCOMMAND, nothing changed")
    func noUpdateUserInformation() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let update: CBORMap = [.int(2): TestClient.descriptor(made[0].id), .int(3): .map(["id": .bytes([1]), "name": "eve"])]
        #expect(client.credentialManagement(CTAPByte.credentialManagementPreview, CM.updateUserInformation, parameters: update,
                                            token: token).status == .invalidSubcommand)
        #expect(client.authenticator.state.residentCredentials.first?.userName == "alice")
    }

    @Test("FIDO_2_1_PRE knew no permissions: a getPinToken token serves 0x41; for 0x0A it lacks cm → PIN_AUTH_INVALID")
    func getPinTokenServesPreview() throws {
        let (client, _) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .one)
        #expect(client.credentialManagement(CTAPByte.credentialManagement, CM.getCredsMetadata, token: token).status == .pinAuthInvalid)
        #expect(try client.credentialManagement(CTAPByte.credentialManagementPreview, CM.getCredsMetadata, token: token).body()[int: 1]
                == .int(3))
    }

    @Test("CTAP 2.1 §6.8 as 0x41: no pinUvAuthParam → PUAT_REQUIRED; a MAC that does not verify → PIN_AUTH_INVALID")
    func authentication() throws {
        let (client, _) = try Self.card()
        #expect(client.credentialManagement(CTAPByte.credentialManagementPreview, CM.getCredsMetadata, token: nil).status
                == .puatRequired)
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        var request = TestClient.credentialManagementRequest(CM.getCredsMetadata, token: token)
        request[int: 4] = .bytes(token.authenticate([UInt8(CM.enumerateRPsBegin)]))
        #expect(client.send(CTAPByte.credentialManagementPreview, request).status == .pinAuthInvalid)
    }
}
