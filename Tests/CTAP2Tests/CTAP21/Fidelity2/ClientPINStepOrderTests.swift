import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// authenticatorClientPIN's rules that no suite checks: a forced PIN change is not satisfied by
/// the same PIN (CTAP 2.1 §6.5.5.6 step 13), undefined permission bits are ignored (§6.5.5.7.2
/// steps 4 and 15), and a subcommand's mandatory parameters are checked first (step 1 of every
/// subcommand), before the protocol (step 2) and the permissions (steps 3–4).
@Suite("Fidelity 2: clientPIN rules (CTAP 2.1 §6.5.5.6, §6.5.5.7)")
struct ClientPINStepOrderTests {
    @Test("CTAP 2.1 §6.5.5.6 step 13: with forcePINChange, changePIN to the same PIN → PIN_POLICY_VIOLATION; the flag stays, the retries are back at 8 (step 8), a different PIN clears it",
          arguments: PlatformPIN.allCases)
    func forcedChangeNeedsANewPIN(pinProtocol: PlatformPIN) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(try SetMinPINLengthTests.setMinPINLength(client, [.int(3): true]).status == .ok)
        #expect(try client.changePIN(from: Fixture.shortPIN, to: Fixture.shortPIN, pinProtocol).status == .pinPolicyViolation)
        #expect(try SetMinPINLengthTests.info(client, 0x0C) == true, "forcePINChange is still set")
        #expect(try client.pinRetries() == 8)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol).status == .pinInvalid, "still no token")
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "24680", pinProtocol).status == .ok)
        #expect(try SetMinPINLengthTests.info(client, 0x0C) == false)
    }

    @Test("CTAP 2.1 §6.5.5.6 step 13 applies only under forcePINChange: changing to the same PIN otherwise is fine")
    func samePINWithoutForce() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        #expect(try client.changePIN(from: Fixture.shortPIN, to: Fixture.shortPIN).status == .ok)
    }

    @Test("CTAP 2.1 §6.5.5.7.2 step 4: \"Undefined permissions present in the permissions parameter are ignored\"; step 15 assigns the rest: 0x80, and bits above 0xFF, give a token of the defined permissions",
          arguments: [UInt64(0x80), 0x100, 0x1_0000_0000])
    func undefinedPermissionsIgnored(undefined: UInt64) throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement | undefined)
        #expect(client.credentialManagement(CM.getCredsMetadata, token: token).status == .ok)
        // Undefined bits alone are not the value 0 (step 3): a token with no permission at all.
        let empty = try client.token(Fixture.shortPIN, .two, permissions: undefined)
        #expect(client.credentialManagement(CM.getCredsMetadata, token: empty).status == .pinAuthInvalid)
        #expect(try client.pinRetries() == 8)
    }

    /// Requests each missing one mandatory member, with an unsupported protocol (3) and a
    /// permission the card cannot grant (be), so only the parameter check can answer first.
    static let missing: [(name: String, subCommand: Int, drop: Int)] = [
        ("getPinUvAuthTokenUsingPinWithPermissions without keyAgreement", 9, 3),
        ("getPinUvAuthTokenUsingPinWithPermissions without pinHashEnc", 9, 6),
        ("getPinToken without keyAgreement", 5, 3),
        ("getPinToken without pinHashEnc", 5, 6),
        ("changePIN without newPinEnc", 4, 5),
        ("setPIN without pinUvAuthParam", 3, 4),
    ]

    @Test("CTAP 2.1 §6.5.5.5–§6.5.5.7 step 1 (\"If the authenticator does not receive mandatory parameters for this command, it returns CTAP2_ERR_MISSING_PARAMETER\") before step 2 (protocol) and steps 3–4 (permissions)",
          arguments: missing.indices)
    func mandatoryParametersFirst(index: Int) throws {
        let (name, subCommand, drop) = Self.missing[index]
        let client = try TestClient()
        if subCommand != 3 { try client.setPIN() }
        let session = try client.session(.two)
        var request: CBORMap = [
            .int(1): .int(3), .int(2): .int(subCommand), .int(3): session.platformKey,
            .int(4): .bytes([UInt8](repeating: 1, count: 32)), .int(5): .bytes([UInt8](repeating: 2, count: 80)),
            .int(6): .bytes([UInt8](repeating: 3, count: 32)),
        ]
        if subCommand == 9 { request[int: 9] = .unsigned(PermissionBit.bioEnrollment) }
        request[int: drop] = nil
        #expect(client.clientPIN(request).status == .missingParameter, "\(name)")
        request[int: 1] = .int(2)
        #expect(client.clientPIN(request).status == .missingParameter, "\(name), supported protocol")
    }

    @Test("CTAP 2.1 §6.5.5.7.2: all members present → step 2 (unsupported protocol: INVALID_PARAMETER) before step 4 (be: UNAUTHORIZED_PERMISSION)")
    func protocolBeforePermissions() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = try TestClient.tokenRequest(try client.session(.two), pin: Fixture.shortPIN, permissions: PermissionBit.bioEnrollment)
        request[int: 1] = .int(3)
        #expect(client.clientPIN(request).status == .invalidParameter)
        request[int: 1] = .int(2)
        #expect(client.clientPIN(request).status == .unauthorizedPermission)
        #expect(try client.pinRetries() == 8)
    }
}
