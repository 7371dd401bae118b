import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Review defect 8: updateUserInformation removes a name or displayName that is absent or empty.
@Suite("Defect 8: updateUserInformation with an empty name removes it")
struct Defect08EmptyUserNameTests {
    static func enumeratedUser(_ setup: CredentialManagementTests.Setup, token: PlatformToken,
                               id: [UInt8]) throws -> CBORMap? {
        let parameters = CredentialManagementTests.rpIdHashParameters(Fixture.rpID)
        var entries = [try setup.client.credentialManagement(CM.enumerateCredentialsBegin, parameters: parameters,
                                                             token: token).body()]
        let total = entries[0][int: 9]?.intValue ?? 1
        for _ in 1..<max(total, 1) {
            entries.append(try setup.client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).body())
        }
        return entries.compactMap { $0[int: 6]?.mapValue }.first { $0[text: "id"] == .bytes(id) }
    }

    @Test("CTAP 2.1 §6.8.6 updateUserInformation: name and displayName present but empty are removed; enumerateCredentials shows the id alone",
          arguments: PlatformPIN.allCases)
    func emptyRemoves(pinProtocol: PlatformPIN) throws {
        let setup = try CredentialManagementTests.Setup(pinProtocol: pinProtocol)
        let token = try setup.cmToken(pinProtocol)
        let update: CBORMap = [.int(2): TestClient.descriptor(setup.bob.id),
                               .int(3): .map(["id": .bytes([2]), "name": "", "displayName": ""])]
        #expect(setup.client.credentialManagement(CM.updateUserInformation, parameters: update, token: token).status == .ok)
        #expect(try Self.enumeratedUser(setup, token: token, id: [2]) == ["id": .bytes([2])])
        let stored = try #require(setup.client.authenticator.state.residentCredentials.first { $0.id == setup.bob.id })
        #expect(stored.userName == nil)
        #expect(stored.userDisplayName == nil)
    }

    @Test("CTAP 2.1 §6.8.6: an empty displayName goes, a non-empty name stays")
    func emptyDisplayNameOnly() throws {
        let setup = try CredentialManagementTests.Setup()
        let token = try setup.cmToken()
        let update: CBORMap = [.int(2): TestClient.descriptor(setup.alice.id),
                               .int(3): .map(["id": .bytes([1]), "name": "alice2", "displayName": ""])]
        #expect(setup.client.credentialManagement(CM.updateUserInformation, parameters: update, token: token).status == .ok)
        #expect(try Self.enumeratedUser(setup, token: token, id: [1]) == ["id": .bytes([1]), "name": "alice2"])
    }
}
