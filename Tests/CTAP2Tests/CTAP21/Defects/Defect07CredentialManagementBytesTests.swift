import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// CBOR written by hand, members in the order given: the test encoder always writes canonical
/// order, and these tests need a platform that does not.
enum HandCBOR {
    static func map(_ members: [(key: [UInt8], value: [UInt8])]) -> [UInt8] {
        precondition(members.count < 24, "short maps only")
        return [0xA0 | UInt8(members.count)] + members.flatMap { $0.key + $0.value }
    }

    static func item(_ value: CBORValue) -> [UInt8] { CBOREncoder.encode(value) }

    /// A credential descriptor with "type" before "id" (canonical order is "id" first: shorter key).
    static func descriptorTypeFirst(_ id: [UInt8]) -> [UInt8] {
        map([(item("type"), item("public-key")), (item("id"), item(.bytes(id)))])
    }

    /// A credentialManagement request body around subCommandParams bytes as given.
    static func credentialManagement(_ subCommand: UInt64, parameters: [UInt8], token: PlatformToken,
                                     macOver message: [UInt8]) -> [UInt8] {
        map([
            (item(1), item(.unsigned(subCommand))), (item(2), parameters),
            (item(3), item(.int(token.pinProtocol.rawValue))), (item(4), item(.bytes(token.authenticate(message)))),
        ])
    }
}

/// Review defect 7: credential management's pinUvAuthParam covers subCommandParams as the platform
/// sent them (CTAP 2.1 §6.8.2 etc.: authenticate(pinUvAuthToken, subCommand ‖ subCommandParams)),
/// not a re-encoding by the card, which differs for a platform that does not encode canonically.
@Suite("Defect 7: credential management MACs the subCommandParams bytes received")
struct Defect07CredentialManagementBytesTests {
    @Test("CTAP 2.1 §6.8.5 deleteCredential: subCommandParams in non-canonical key order, MAC over those bytes → OK; MAC over the canonical re-encoding → PIN_AUTH_INVALID",
          arguments: PlatformPIN.allCases)
    func deleteCredential(pinProtocol: PlatformPIN) throws {
        let setup = try CredentialManagementTests.Setup(pinProtocol: pinProtocol)
        let client = setup.client
        let token = try setup.cmToken(pinProtocol)
        let sent = HandCBOR.map([(HandCBOR.item(2), HandCBOR.descriptorTypeFirst(setup.bob.id))])
        let canonical = CBOREncoder.encode(try CBORDecoder.decode(sent))
        #expect(sent != canonical, "the test sends a non-canonical encoding")

        let subCommand = [UInt8(CM.deleteCredential)]
        let overCanonical = HandCBOR.credentialManagement(CM.deleteCredential, parameters: sent, token: token,
                                                          macOver: subCommand + canonical)
        #expect(client.sendRaw([CTAPByte.credentialManagement] + overCanonical).status == .pinAuthInvalid)
        #expect(client.authenticator.state.residentCredentials.contains { $0.id == setup.bob.id })

        let overSent = HandCBOR.credentialManagement(CM.deleteCredential, parameters: sent, token: token,
                                                     macOver: subCommand + sent)
        #expect(client.sendRaw([CTAPByte.credentialManagement] + overSent).status == .ok)
        #expect(!client.authenticator.state.residentCredentials.contains { $0.id == setup.bob.id })
    }

    @Test("CTAP 2.1 §6.8.6 updateUserInformation: subCommandParams with user (0x03) before credentialID (0x02), MAC over the bytes sent → OK; over the canonical form → PIN_AUTH_INVALID")
    func updateUserInformation() throws {
        let setup = try CredentialManagementTests.Setup()
        let client = setup.client
        let token = try setup.cmToken()
        let sent = HandCBOR.map([
            (HandCBOR.item(3), HandCBOR.item(.map(["id": .bytes([2]), "name": "robert"]))),
            (HandCBOR.item(2), HandCBOR.item(TestClient.descriptor(setup.bob.id))),
        ])
        let canonical = CBOREncoder.encode(try CBORDecoder.decode(sent))
        #expect(sent != canonical)
        let subCommand = [UInt8(CM.updateUserInformation)]
        let overCanonical = HandCBOR.credentialManagement(CM.updateUserInformation, parameters: sent, token: token,
                                                          macOver: subCommand + canonical)
        #expect(client.sendRaw([CTAPByte.credentialManagement] + overCanonical).status == .pinAuthInvalid)
        let overSent = HandCBOR.credentialManagement(CM.updateUserInformation, parameters: sent, token: token,
                                                     macOver: subCommand + sent)
        #expect(client.sendRaw([CTAPByte.credentialManagement] + overSent).status == .ok)
        #expect(client.authenticator.state.residentCredentials.first { $0.id == setup.bob.id }?.userName == "robert")
    }

    @Test("CTAP 2.1 §8 (CTAP2 canonical CBOR): a subCommandParams length in a longer form than needed is not accepted → INVALID_CBOR")
    func longerLengthRefused() throws {
        let setup = try CredentialManagementTests.Setup()
        let token = try setup.cmToken()
        // rpIDHash (32 bytes) with a two-byte length head 0x59 0x0020 instead of 0x58 0x20.
        let hash = SHA256.hash(Array(Fixture.rpID.utf8))
        let sent = HandCBOR.map([(HandCBOR.item(1), [0x59, 0x00, 0x20] + hash)])
        let body = HandCBOR.credentialManagement(CM.enumerateCredentialsBegin, parameters: sent, token: token,
                                                 macOver: [UInt8(CM.enumerateCredentialsBegin)] + sent)
        #expect(setup.client.sendRaw([CTAPByte.credentialManagement] + body).status == .invalidCBOR)
    }
}
