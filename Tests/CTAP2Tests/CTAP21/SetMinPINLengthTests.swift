import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// setMinPINLength (CTAP 2.1 §6.11.4) and the minPinLength extension (§12.4) on the reference
/// card (maxRPIDsForSetMinPINLength 8, maxPINLength 63).
@Suite("setMinPINLength (CTAP 2.1 §6.11.4) and minPinLength (§12.4)")
struct SetMinPINLengthTests {
    static func setMinPINLength(_ client: TestClient, _ parameters: CBORMap, pin: String = Fixture.shortPIN) throws -> Reply {
        client.config(ConfigSubcommand.setMinPINLength, parameters: parameters, token: try client.configToken(pin: pin))
    }

    static func info(_ client: TestClient, _ key: Int) throws -> CBORValue? { try client.getInfo()[int: key] }

    @Test("CTAP 2.1 §6.11.4: newMinPINLength raises getInfo minPINLength (0x0D); a new PIN shorter than it → PIN_POLICY_VIOLATION")
    func raises() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN("123456")
        #expect(try Self.setMinPINLength(client, [.int(1): 6], pin: "123456").status == .ok)
        #expect(try Self.info(client, 0x0D) == .int(6))
        #expect(try Self.info(client, 0x0C) == false, "the current PIN is long enough")
        #expect(try client.changePIN(from: "123456", to: "12345").status == .pinPolicyViolation)
        #expect(try client.changePIN(from: "123456", to: "654321").status == .ok)
    }

    @Test("CTAP 2.1 §6.11.4: newMinPINLength below the current minimum → PIN_POLICY_VIOLATION; the same is OK; beyond maxPINLength (63) → PIN_POLICY_VIOLATION",
          arguments: [(3, CTAPStatus.pinPolicyViolation), (5, .pinPolicyViolation), (6, .ok), (63, .ok), (64, .pinPolicyViolation)])
    func bounds(length: Int, expected: CTAPStatus) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN("123456")
        #expect(try Self.setMinPINLength(client, [.int(1): 6], pin: "123456").status == .ok)
        #expect(try Self.setMinPINLength(client, [.int(1): .int(length)], pin: "123456").status == expected)
        #expect(try Self.info(client, 0x0D) == .int(expected == .ok ? length : 6))
    }

    @Test("CTAP 2.1 §6.11.4: minPinLengthRPIDs up to maxRPIDsForSetMinPINLength (getInfo 0x10 = 8) is stored; one more → PIN_POLICY_VIOLATION (this card's choice: the spec names no status), nothing changed")
    func rpIDLimit() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        #expect(try Self.info(client, 0x10) == .int(8))
        let eight = (1...8).map { "rp\($0).example" }
        #expect(try Self.setMinPINLength(client, [.int(2): .array(eight.map { .text($0) })]).status == .ok)
        #expect(client.authenticator.state.minPinLengthRPIDs == eight)
        let nine = eight + ["rp9.example"]
        #expect(try Self.setMinPINLength(client, [.int(1): 8, .int(2): .array(nine.map { .text($0) })]).status
                == .pinPolicyViolation)
        #expect(client.authenticator.state.minPinLengthRPIDs == eight)
        #expect(try Self.info(client, 0x0D) == .int(4))
    }

    @Test("CTAP 2.1 §6.11.4 forceChangePin, §6.5.5.7 step 11: forcePINChange true; getPinToken → PIN_INVALID (§6.5.5.7.1), getPinUvAuthTokenUsingPinWithPermissions → PIN_POLICY_VIOLATION (§6.5.5.7.2), retries kept, until changePIN",
          arguments: PlatformPIN.allCases)
    func forceChangePin(pinProtocol: PlatformPIN) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(try Self.setMinPINLength(client, [.int(3): true]).status == .ok)
        #expect(try Self.info(client, 0x0C) == true)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol).status == .pinInvalid)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID).status
                == .pinPolicyViolation)
        #expect(try client.pinRetries() == 8, "the PIN was right: no attempt is lost")
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol).status == .ok)
        #expect(try Self.info(client, 0x0C) == false)
        #expect(try client.token("98765", pinProtocol).value.count == 32)
    }

    @Test("CTAP 2.1 §6.11.4: a new minimum longer than the current PIN forces a PIN change by itself")
    func minimumAboveCurrentPIN() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN("1234")
        #expect(try Self.setMinPINLength(client, [.int(1): 6]).status == .ok)
        #expect(try Self.info(client, 0x0C) == true)
        #expect(try client.tokenReply("1234").status == .pinInvalid)
        #expect(try client.changePIN(from: "1234", to: "12345").status == .pinPolicyViolation)
        #expect(try client.changePIN(from: "1234", to: "123456").status == .ok)
        #expect(try Self.info(client, 0x0C) == false)
    }

    @Test("CTAP 2.1 §6.11.4: forceChangePin on a card without a PIN → PIN_NOT_SET; a minimum alone is fine")
    func forceWithoutPIN() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.setMinPINLength, parameters: [.int(3): true], token: nil).status == .pinNotSet)
        #expect(client.config(ConfigSubcommand.setMinPINLength, parameters: [.int(1): 8], token: nil).status == .ok)
        #expect(try Self.info(client, 0x0C) == false)
        #expect(try client.setPIN("1234567").status == .pinPolicyViolation)
        #expect(try client.setPIN("12345678").status == .ok)
    }

    @Test("CTAP 2.1 §6.11.4: subCommandParams members of the wrong type → CBOR_UNEXPECTED_TYPE",
          arguments: [[.int(1): "6"], [.int(2): "rp.example"], [.int(2): .array([.int(1)])], [.int(3): 1]] as [CBORMap])
    func wrongTypes(parameters: CBORMap) throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.setMinPINLength, parameters: parameters, token: nil).status == .cborUnexpectedType)
    }

    // MARK: - The minPinLength extension

    static func minPinLengthOutput(_ client: TestClient, rpId: String, input: Bool = true) throws -> CBORValue? {
        let made = try client.makeCredential(rpId: rpId, extensions: ["minPinLength": .bool(input)])
        return made.authData.extensions?[text: "minPinLength"]
    }

    @Test("CTAP 2.1 §12.4 minPinLength: the current minimum is reported only to RP IDs in minPinLengthRPIDs")
    func extensionForListedRPs() throws {
        let client = try TestClient(profile: .reference)
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.rpID) == nil, "no RP is listed yet")
        #expect(client.config(ConfigSubcommand.setMinPINLength,
                              parameters: [.int(1): 7, .int(2): .array([.text(Fixture.rpID)])], token: nil).status == .ok)
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.rpID) == .int(7))
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.otherRpID) == nil)
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.rpID, input: false) == nil)
        #expect(client.config(ConfigSubcommand.setMinPINLength, parameters: [.int(1): 9], token: nil).status == .ok)
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.rpID) == .int(9), "the list stays when not given")
    }

    @Test("CTAP 2.1 §12.4: a profile's pre-configured RP IDs are answered too; a card without the extension ignores the input")
    func preconfiguredRPIDs() throws {
        var profile = CardProfile.reference
        profile.minPinLengthRPIDs = ["vendor.example"]
        let client = try TestClient(profile: profile)
        #expect(try Self.minPinLengthOutput(client, rpId: "vendor.example") == .int(4))
        #expect(try Self.minPinLengthOutput(client, rpId: Fixture.rpID) == nil)
        let plain = try TestClient()
        #expect(try Self.minPinLengthOutput(plain, rpId: Fixture.rpID) == nil)
    }
}
