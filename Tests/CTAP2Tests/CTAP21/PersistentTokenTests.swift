import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// The persistent pinUvAuthToken (CTAP 2.2 `pcmr`, permission 0x40, getInfo option perCredMgmtRO):
/// read-only credential management that survives power cycles until the PIN changes or the card
/// is reset, and getInfo's encIdentifier (0x19) and encCredStoreState (0x1E) under it.
@Suite("The persistent pinUvAuthToken (CTAP 2.2 pcmr)")
struct PersistentTokenTests {
    static let pcmr = PermissionBit.persistentCredentialManagementReadOnly

    /// The reference card with a PIN and discoverable credentials alice, bob (example.com).
    static func card() throws -> (TestClient, [MadeCredential]) {
        let client = try TestClient(profile: .reference)
        let made = [try client.makeCredential(userId: [1], userName: "alice", rk: true),
                    try client.makeCredential(userId: [2], userName: "bob", rk: true)]
        try client.setPIN()
        return (client, made)
    }

    static func metadata(_ client: TestClient, _ token: PlatformToken) -> Reply {
        client.credentialManagement(CM.getCredsMetadata, token: token)
    }

    @Test("CTAP 2.2 §6.5.5.7.2 step 4: pcmr alone gives a token (no RP ID needed); pcmr with another permission → UNAUTHORIZED_PERMISSION (\"pcmr: perCredMgmtRO is false or absent, or any other pinUvAuthToken permission is requested\"), no PIN attempt used",
          arguments: [PermissionBit.credentialManagement, PermissionBit.makeCredential, PermissionBit.largeBlobWrite])
    func issuedAlone(other: UInt64) throws {
        let (client, _) = try Self.card()
        #expect(try client.getInfo()[int: 4]?.mapValue?[text: "perCredMgmtRO"] == true)
        #expect(try client.tokenReply(Fixture.shortPIN, .two, permissions: Self.pcmr | other, rpId: Fixture.rpID).status
                == .unauthorizedPermission)
        #expect(try client.pinRetries() == 8)
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(try Self.metadata(client, token).body()[int: 1] == .int(2))
    }

    @Test("CTAP 2.2 pcmr: the token survives a power cycle (it is stored), unlike a pinUvAuthToken", arguments: PlatformPIN.allCases)
    func survivesPowerCycle(pinProtocol: PlatformPIN) throws {
        let (client, _) = try Self.card()
        let persistent = try client.token(Fixture.shortPIN, pinProtocol, permissions: Self.pcmr)
        #expect(client.authenticator.state.persistentToken == persistent.value)
        client.powerCycle()
        client.powerCycle()
        #expect(try Self.metadata(client, persistent).body()[int: 1] == .int(2))
    }

    @Test("CTAP 2.2 pcmr with CTAP 2.1 §6.8.2–§6.8.4: getCredsMetadata, enumerateRPs and enumerateCredentials (with their GetNext) work with it")
    func readOnlySubcommands() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(try Self.metadata(client, token).body()[int: 1] == .int(2))
        let rp = try client.credentialManagement(CM.enumerateRPsBegin, token: token).body()
        #expect(rp[int: 3]?.mapValue?[text: "id"] == .text(Fixture.rpID))
        let first = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                    token: token).body()
        #expect(first[int: 9] == .int(2))
        let second = try client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).body()
        let ids = [first, second].compactMap { $0[int: 7]?.mapValue?[text: "id"]?.bytesValue }
        #expect(Set(ids) == Set(made.map(\.id)))
    }

    @Test("CTAP 2.2 pcmr is read-only: deleteCredential and updateUserInformation with it → PIN_AUTH_INVALID, nothing changed")
    func writesRefused() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(made[0].id)],
                                            token: token).status == .pinAuthInvalid)
        let update: CBORMap = [.int(2): TestClient.descriptor(made[1].id), .int(3): .map(["id": .bytes([2]), "name": "eve"])]
        #expect(client.credentialManagement(CM.updateUserInformation, parameters: update, token: token).status == .pinAuthInvalid)
        #expect(client.authenticator.state.residentCredentials.map(\.userName) == ["alice", "bob"])
    }

    @Test("CTAP 2.2 pcmr serves credential management only: makeCredential, getAssertion, authenticatorConfig and large-blob writes with it → PIN_AUTH_INVALID")
    func notAPinUvAuthToken() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made[0].id], token: token)).status == .pinAuthInvalid)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: token).status == .pinAuthInvalid)
        #expect(client.largeBlobSet(TestClient.serializedLargeBlobArray([]), offset: 0, length: 17, token: token).status
                == .pinAuthInvalid)
    }

    @Test("CTAP 2.2 §6.5.5.7.2 step 12 (\"Assign pcmr permission to the persistentPinUvAuthToken\", return it; no reset): a pinUvAuthToken issued later leaves the persistent token, and a second pcmr request returns the same one, so the first platform's keeps working",
          arguments: PlatformPIN.allCases)
    func otherTokens(pinProtocol: PlatformPIN) throws {
        let (client, _) = try Self.card()
        let first = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        let cm = try client.token(Fixture.shortPIN, .one, permissions: PermissionBit.credentialManagement)
        #expect(Self.metadata(client, cm).status == .ok)
        #expect(Self.metadata(client, first).status == .ok, "still valid after another token")
        let second = try client.token(Fixture.shortPIN, pinProtocol, permissions: Self.pcmr)
        #expect(second.value == first.value, "the existing persistent token, not a new one")
        #expect(Self.metadata(client, first).status == .ok)
        #expect(Self.metadata(client, second).status == .ok)
    }

    @Test("CTAP 2.2 pcmr: changePIN forgets the persistent token → PIN_AUTH_INVALID; getInfo has no encIdentifier any more")
    func forgottenOnChangePIN() throws {
        let (client, _) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765").status == .ok)
        #expect(Self.metadata(client, token).status == .pinAuthInvalid)
        #expect(client.authenticator.state.persistentToken == nil)
        #expect(try client.getInfo()[int: 0x19] == nil)
    }

    @Test("CTAP 2.2 pcmr with CTAP 2.1 §6.6: authenticatorReset forgets the persistent token")
    func forgottenOnReset() throws {
        let (client, _) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        #expect(client.send(CTAPByte.reset).status == .ok)
        #expect(client.authenticator.state.persistentToken == nil)
        try client.setPIN()
        #expect(Self.metadata(client, token).status == .pinAuthInvalid)
    }

    @Test("CTAP 2.2 pcmr on a card without it (arculus-fido21) → UNAUTHORIZED_PERMISSION")
    func notOffered() throws {
        let client = try TestClient()
        try client.setPIN()
        #expect(try client.tokenReply(Fixture.shortPIN, .two, permissions: Self.pcmr).status == .unauthorizedPermission)
        #expect(try client.getInfo()[int: 4]?.mapValue?[text: "perCredMgmtRO"] == nil)
    }

    // MARK: - encIdentifier and encCredStoreState

    /// IV (16) ‖ AES-128-CBC(HKDF-SHA-256(token, salt 32×0, info, 16), plaintext), decrypted.
    static func decrypt(_ value: CBORValue?, token: PlatformToken, info: String) throws -> [UInt8] {
        let bytes = try #require(value?.bytesValue)
        #expect(bytes.count == 32, "IV and one block")
        let key = HKDFSHA256.deriveKey(inputKeyMaterial: token.value, salt: [UInt8](repeating: 0, count: 32),
                                       info: Array(info.utf8), outputByteCount: 16)
        return try AES128CBC.decrypt(key: key, iv: Array(bytes[0..<16]), ciphertext: Array(bytes[16...]))
    }

    static func identifiers(_ client: TestClient, _ token: PlatformToken) throws -> (identifier: [UInt8], store: [UInt8]) {
        let info = try client.getInfo()
        return (try decrypt(info[int: 0x19], token: token, info: "encIdentifier"),
                try decrypt(info[int: 0x1E], token: token, info: "encCredStoreState"))
    }

    @Test("CTAP 2.2 §6.4 encIdentifier (0x19), encCredStoreState (0x1E): absent without a persistent token; with one, each decrypts under HKDF-SHA-256(token, 32×0, info, 16) to 16 bytes; fresh IVs, same plaintexts")
    func encryptedIdentifiers() throws {
        let (client, _) = try Self.card()
        #expect(try client.getInfo()[int: 0x19] == nil)
        #expect(try client.getInfo()[int: 0x1E] == nil)
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        let first = try client.getInfo()
        let second = try client.getInfo()
        #expect(first[int: 0x19] != second[int: 0x19], "a new IV each time")
        let a = try Self.identifiers(client, token)
        let b = try Self.identifiers(client, token)
        #expect(a.identifier.count == 16)
        #expect(a.store.count == 16)
        #expect(a.identifier == b.identifier)
        #expect(a.store == b.store)
        #expect(a.identifier != a.store)
    }

    @Test("CTAP 2.2 §6.4 encCredStoreState changes with every change to the discoverable credentials (add, update, delete), not otherwise; encIdentifier stays")
    func credentialStoreState() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr)
        var states = [try Self.identifiers(client, token)]
        _ = try client.makeCredential(userId: [9])  // non-discoverable: nothing stored
        #expect(try Self.identifiers(client, token).store == states[0].store)
        let mc = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        _ = try client.makeCredential(userId: [3], rk: true, token: mc)
        states.append(try Self.identifiers(client, token))
        let cm = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let update: CBORMap = [.int(2): TestClient.descriptor(made[0].id), .int(3): .map(["id": .bytes([1]), "name": "al"])]
        #expect(client.credentialManagement(CM.updateUserInformation, parameters: update, token: cm).status == .ok)
        states.append(try Self.identifiers(client, token))
        #expect(client.credentialManagement(CM.deleteCredential, parameters: [.int(2): TestClient.descriptor(made[1].id)],
                                            token: cm).status == .ok)
        states.append(try Self.identifiers(client, token))
        #expect(Set(states.map(\.store)).count == 4, "each change gives a new state")
        #expect(Set(states.map(\.identifier)).count == 1, "the card's identifier stays")
    }

    @Test("CTAP 2.2 §6.4 encIdentifier: after authenticatorReset the card has a new identifier")
    func identifierAfterReset() throws {
        let (client, _) = try Self.card()
        let before = try Self.identifiers(client, try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr))
        #expect(client.send(CTAPByte.reset).status == .ok)
        try client.setPIN()
        let after = try Self.identifiers(client, try client.token(Fixture.shortPIN, .two, permissions: Self.pcmr))
        #expect(after.identifier != before.identifier)
    }
}
