import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import TestSupport

@Suite("authenticatorClientPIN (CTAP 2.1 §6.5)")
struct ClientPINTests {
    @Test("getPINRetries: PIN_NOT_SET on a blank card; 8 once a PIN is set; powerCycleState only on CTAP 2.1")
    func retries() throws {
        let ctap21 = try TestClient()
        #expect(ctap21.clientPIN([.int(2): .int(1)]).status == .pinNotSet)
        #expect(try ctap21.setPIN().status == .ok)
        let body = try ctap21.clientPIN([.int(2): .int(1)]).body()
        #expect(body[int: 3] == .int(8))
        #expect(body[int: 4] == false)
        let ctap20 = try TestClient(profile: .arculusFIDO2)
        #expect(ctap20.clientPIN([.int(1): .int(1), .int(2): .int(1)]).status == .pinNotSet)
        #expect(try ctap20.setPIN(Fixture.shortPIN, .one).status == .ok)
        #expect(try ctap20.clientPIN([.int(1): .int(1), .int(2): .int(1)]).body() == [.int(3): .int(8)])
    }

    @Test("getKeyAgreement: a P-256 COSE key {1: 2, 3: -25, -1: 1, -2: x, -3: y}, stable until power-off", arguments: PlatformPIN.allCases)
    func keyAgreement(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let request: CBORMap = [.int(1): .int(pinProtocol.rawValue), .int(2): .int(2)]
        let body = try client.clientPIN(request).body()
        #expect(body.count == 1)
        let key = try #require(body[int: 1])
        _ = try PlatformPIN.keyAgreementPublicKey(key)
        #expect(try client.clientPIN(request).body()[int: 1] == key)
        client.powerCycle()
        #expect(try client.clientPIN(request).body()[int: 1] != key, "regenerated at power-up")
    }

    @Test("getKeyAgreement without pinUvAuthProtocol → MISSING_PARAMETER, unsupported → INVALID_PARAMETER")
    func keyAgreementProtocol() throws {
        let client = try TestClient()
        #expect(client.clientPIN([.int(2): .int(2)]).status == .missingParameter)
        #expect(client.clientPIN([.int(1): .int(3), .int(2): .int(2)]).status == .invalidParameter)
        let ctap20 = try TestClient(profile: .arculusFIDO2)
        #expect(ctap20.clientPIN([.int(1): .int(2), .int(2): .int(2)]).status == .invalidParameter)
    }

    @Test("no subCommand → MISSING_PARAMETER; unknown subCommand → INVALID_SUBCOMMAND", arguments: [0x08, 0x0A, 0x20, 0xFF])
    func subcommands(subCommand: Int) throws {
        let client = try TestClient()
        #expect(client.clientPIN([.int(1): .int(1)]).status == .missingParameter)
        #expect(client.clientPIN([.int(1): .int(1), .int(2): .int(subCommand)]).status == .invalidSubcommand)
    }

    @Test("getPinUvAuthTokenUsingPinWithPermissions (0x09) does not exist on CTAP 2.0 → INVALID_SUBCOMMAND")
    func permissionsSubcommandOnCTAP20() throws {
        let client = try TestClient(profile: .arculusFIDO2)
        try client.setPIN()
        let reply = try client.tokenReply(Fixture.shortPIN, .one, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(reply.status == .invalidSubcommand)
    }

    // MARK: - setPIN

    @Test("setPIN then getPinToken; a second setPIN → PIN_AUTH_INVALID", arguments: PlatformPIN.allCases)
    func setPIN(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        #expect(try client.setPIN("123456", pinProtocol).status == .ok)
        #expect(client.authenticator.state.isPINSet)
        #expect(client.authenticator.state.pinHash == pinHash("123456"))
        #expect(try client.token("123456", pinProtocol).value.count == 32)
        #expect(try client.setPIN("654321", pinProtocol).status == .pinAuthInvalid)
        #expect(try client.token("123456", pinProtocol).value.count == 32, "the first PIN stays")
    }

    static let policyViolations: [(String, [UInt8])] = [
        ("3 ASCII characters", paddedPIN("123")),
        ("empty", paddedPIN("")),
        ("ééé: 3 code points in 6 bytes", paddedPIN("\u{E9}\u{E9}\u{E9}")),
        ("64 non-zero bytes", [UInt8](repeating: 0x31, count: 64)),
        ("not UTF-8", [0xFF, 0xFE, 0xFD, 0xFC] + [UInt8](repeating: 0, count: 60)),
    ]

    @Test("PIN policy violations → PIN_POLICY_VIOLATION", arguments: PlatformPIN.allCases, policyViolations.map(\.0))
    func policyViolation(pinProtocol: PlatformPIN, name: String) throws {
        let block = try #require(Self.policyViolations.first { $0.0 == name }?.1)
        let client = try TestClient()
        let request = try TestClient.setPINRequest(try client.session(pinProtocol), newPINBlock: block)
        #expect(client.clientPIN(request).status == .pinPolicyViolation)
        #expect(!client.authenticator.state.isPINSet)
    }

    @Test("PINs at the limits are accepted: 4 code points (8 bytes of é), 63 bytes",
          arguments: ["\u{E9}\u{E9}\u{E9}\u{E9}", "1234", String(repeating: "9", count: 63)])
    func policyLimits(pin: String) throws {
        let client = try TestClient()
        #expect(try client.setPIN(pin, .two).status == .ok)
        #expect(try client.token(pin, .two).value.count == 32)
    }

    @Test("setPIN with a wrong pinUvAuthParam → PIN_AUTH_INVALID", arguments: PlatformPIN.allCases)
    func setPINWrongParam(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let session = try client.session(pinProtocol)
        var request = try TestClient.setPINRequest(session, newPINBlock: paddedPIN(Fixture.shortPIN))
        request[int: 4] = .bytes(session.authenticate(paddedPIN(Fixture.shortPIN)))  // over the plaintext
        #expect(client.clientPIN(request).status == .pinAuthInvalid)
        request[int: 4] = .bytes([UInt8](repeating: 0, count: pinProtocol.authenticatorOutputLength))
        #expect(client.clientPIN(request).status == .pinAuthInvalid)
        #expect(!client.authenticator.state.isPINSet)
    }

    @Test("setPIN: authenticated newPinEnc that does not decrypt → PIN_AUTH_INVALID; not 64 bytes → INVALID_PARAMETER",
          arguments: PlatformPIN.allCases)
    func setPINBlockShape(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        let session = try client.session(pinProtocol)
        // §6.5.5.5 step 6: "decrypt(shared secret, newPinEnc) ... If an error results, it returns
        // CTAP2_ERR_PIN_AUTH_INVALID": a ciphertext that is not whole AES blocks cannot decrypt.
        let ragged = try session.encrypt(paddedPIN(Fixture.shortPIN)).dropLast()
        let raggedRequest: CBORMap = [
            .int(1): .int(pinProtocol.rawValue), .int(2): .int(3), .int(3): session.platformKey,
            .int(4): .bytes(session.authenticate(Array(ragged))), .int(5): .bytes(Array(ragged)),
        ]
        #expect(client.clientPIN(raggedRequest).status == .pinAuthInvalid)
        // Step 7: "If paddedNewPin is NOT 64 bytes long, it returns CTAP1_ERR_INVALID_PARAMETER."
        let short = try TestClient.setPINRequest(session, newPINBlock: Array(paddedPIN(Fixture.shortPIN).prefix(32)))
        #expect(client.clientPIN(short).status == .invalidParameter)
        #expect(!client.authenticator.state.isPINSet)
    }

    @Test("setPIN without a mandatory parameter → MISSING_PARAMETER", arguments: [3, 4, 5])
    func setPINMissingParameter(key: Int) throws {
        let client = try TestClient()
        var request = try TestClient.setPINRequest(try client.session(.one), newPINBlock: paddedPIN(Fixture.shortPIN))
        request[int: key] = nil
        #expect(client.clientPIN(request).status == .missingParameter)
    }

    @Test("setPIN with a platform key that is not on P-256 → INVALID_PARAMETER")
    func setPINBadPlatformKey() throws {
        let client = try TestClient()
        let session = try client.session(.one)
        var request = try TestClient.setPINRequest(session, newPINBlock: paddedPIN(Fixture.shortPIN))
        request[int: 3] = .map([.int(1): .int(2), .int(3): .int(-25), .int(-1): .int(1),
                                .int(-2): .bytes([UInt8](repeating: 1, count: 32)),
                                .int(-3): .bytes([UInt8](repeating: 2, count: 32))])
        #expect(client.clientPIN(request).status == .invalidParameter)
    }

    // MARK: - changePIN

    @Test("changePIN: the new PIN works, the old does not; tokens issued before are invalidated", arguments: PlatformPIN.allCases)
    func changePIN(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let oldToken = try client.token(Fixture.shortPIN, pinProtocol)
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol).status == .ok)
        #expect(client.authenticator.state.pinHash == pinHash("98765"))
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol).status == .pinInvalid)
        #expect(try client.token("98765", pinProtocol).value.count == 32)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: oldToken)).status == .pinAuthInvalid)
    }

    @Test("changePIN with a wrong current PIN → PIN_INVALID, retries decremented", arguments: PlatformPIN.allCases)
    func changePINWrongCurrent(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(try client.changePIN(from: "0000", to: "98765", pinProtocol).status == .pinInvalid)
        #expect(try client.pinRetries() == 7)
        #expect(client.authenticator.state.pinHash == pinHash(Fixture.shortPIN))
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol).status == .ok)
        #expect(try client.pinRetries() == 8)
    }

    @Test("changePIN: right PIN but a newPinEnc that does not decrypt → PIN_AUTH_INVALID, retries restored, PIN kept",
          arguments: PlatformPIN.allCases)
    func changePINRaggedNewPIN(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        _ = try client.tokenReply("0000", pinProtocol)
        let session = try client.session(pinProtocol)
        let newPinEnc = Array(try session.encrypt(paddedPIN("98765")).dropLast(3))
        let pinHashEnc = try session.encrypt(pinHash(Fixture.shortPIN))
        let request: CBORMap = [
            .int(1): .int(pinProtocol.rawValue), .int(2): .int(4), .int(3): session.platformKey,
            .int(4): .bytes(session.authenticate(newPinEnc + pinHashEnc)), .int(5): .bytes(newPinEnc),
            .int(6): .bytes(pinHashEnc),
        ]
        // §6.5.5.6: step 8 restores pinRetries after the PIN matched; step 9 fails on decrypt.
        #expect(client.clientPIN(request).status == .pinAuthInvalid)
        #expect(try client.pinRetries() == 8)
        #expect(client.authenticator.state.pinHash == pinHash(Fixture.shortPIN))
    }

    @Test("changePIN with a wrong pinUvAuthParam → PIN_AUTH_INVALID, not a PIN attempt")
    func changePINWrongParam() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = try TestClient.changePINRequest(try client.session(.two), currentPIN: Fixture.shortPIN, newPIN: "98765")
        request[int: 4] = .bytes([UInt8](repeating: 3, count: 32))
        #expect(client.clientPIN(request).status == .pinAuthInvalid)
        #expect(try client.pinRetries() == 8)
    }

    @Test("changePIN to a too-short PIN → PIN_POLICY_VIOLATION, PIN unchanged")
    func changePINPolicy() throws {
        let client = try TestClient()
        try client.setPIN()
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "12", .one).status == .pinPolicyViolation)
        #expect(client.authenticator.state.pinHash == pinHash(Fixture.shortPIN))
        #expect(try client.pinRetries() == 8)
    }

    @Test("changePIN / getPinToken without a PIN → PIN_NOT_SET")
    func noPINSet() throws {
        let client = try TestClient()
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765").status == .pinNotSet)
        #expect(try client.tokenReply(Fixture.shortPIN).status == .pinNotSet)
    }

    // MARK: - Tokens

    @Test("getPinToken with a wrong PIN → PIN_INVALID and one retry fewer", arguments: PlatformPIN.allCases)
    func tokenWrongPIN(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(try client.tokenReply("4321", pinProtocol).status == .pinInvalid)
        #expect(try client.pinRetries() == 7)
        _ = try client.token(Fixture.shortPIN, pinProtocol)
        #expect(try client.pinRetries() == 8, "a correct PIN restores the retries")
    }

    @Test("getPinToken on CTAP 2.1 with permissions or rpId → INVALID_PARAMETER")
    func getPinTokenWithPermissions() throws {
        let client = try TestClient()
        try client.setPIN()
        let session = try client.session(.two)
        var request = try TestClient.tokenRequest(session, pin: Fixture.shortPIN)
        request[int: 9] = .int(1)
        #expect(client.clientPIN(request).status == .invalidParameter)
        request[int: 9] = nil
        request[int: 0x0A] = .text(Fixture.rpID)
        #expect(client.clientPIN(request).status == .invalidParameter)
        #expect(try client.pinRetries() == 8)
    }

    @Test("permissions token: 0 → INVALID_PARAMETER, be → UNAUTHORIZED_PERMISSION, missing → MISSING_PARAMETER",
          arguments: PlatformPIN.allCases)
    func permissionErrors(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol, permissions: 0).status == .invalidParameter)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.bioEnrollment).status
                == .unauthorizedPermission)
        #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential | 0x20).status
                == .unauthorizedPermission, "acfg without authenticatorConfig")
        var request = try TestClient.tokenRequest(try client.session(pinProtocol), pin: Fixture.shortPIN,
                                                  permissions: PermissionBit.makeCredential)
        request[int: 2] = .int(9)
        request[int: 9] = nil
        #expect(client.clientPIN(request).status == .missingParameter)
        #expect(try client.pinRetries() == 8, "none of these was a PIN attempt")
        // CTAP 2.1 §6.5.5.7, the permissions table: mc and ga need a permissions RP ID.
        for permissions in [PermissionBit.makeCredential, PermissionBit.getAssertion, PermissionBit.makeCredential | PermissionBit.getAssertion] {
            #expect(try client.tokenReply(Fixture.shortPIN, pinProtocol, permissions: permissions).status == .missingParameter,
                    "permissions \(permissions) without rpId")
        }
        #expect(try client.pinRetries() == 8, "none of these was a PIN attempt")
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential | PermissionBit.getAssertion,
                                     rpId: Fixture.rpID)
        #expect(token.value.count == 32)
    }

    @Test("getPinToken without pinHashEnc or keyAgreement → MISSING_PARAMETER", arguments: [3, 6])
    func tokenMissingParameter(key: Int) throws {
        let client = try TestClient()
        try client.setPIN()
        var request = try TestClient.tokenRequest(try client.session(.one), pin: Fixture.shortPIN)
        request[int: key] = nil
        #expect(client.clientPIN(request).status == .missingParameter)
    }

    @Test("a new token replaces the previous one")
    func newTokenReplacesOld() throws {
        let client = try TestClient()
        try client.setPIN()
        let first = try client.token()
        let second = try client.token()
        #expect(first.value != second.value)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: first)).status == .pinAuthInvalid)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: second)).status == .ok)
    }

    @Test("tokens are lost at power-off")
    func tokenLostAtPowerOff() throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token()
        client.powerCycle()
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }

    // MARK: - Key agreement regeneration

    @Test("a wrong PIN regenerates the key agreement key: the old shared secret then fails", arguments: PlatformPIN.allCases)
    func wrongPINRegeneratesKeyAgreement(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let keyRequest: CBORMap = [.int(1): .int(pinProtocol.rawValue), .int(2): .int(2)]
        let cardKeyBefore = try client.clientPIN(keyRequest).body()[int: 1]
        let stale = try client.session(pinProtocol)
        #expect(client.clientPIN(try TestClient.tokenRequest(stale, pin: "0000")).status == .pinInvalid)
        #expect(try client.clientPIN(keyRequest).body()[int: 1] != cardKeyBefore, "regenerate (§6.5.5.7.1 step 9.1.1)")

        // The right PIN under the stale shared secret: the card decrypts pinHashEnc with a
        // different secret, which is a mismatch (§6.5.5.7.1 step 9.1): PIN_INVALID, attempt counted.
        #expect(client.clientPIN(try TestClient.tokenRequest(stale, pin: Fixture.shortPIN)).status == .pinInvalid)
        #expect(try client.pinRetries() == 6)

        // changePIN under a stale secret fails its pinUvAuthParam check first (§6.5.5.6 step 5):
        // PIN_AUTH_INVALID, and no attempt is used.
        client.powerCycle()
        let beforeFailure = try client.session(pinProtocol)
        #expect(try client.tokenReply("0000", pinProtocol).status == .pinInvalid)
        #expect(try client.pinRetries() == 5)
        let change = try TestClient.changePINRequest(beforeFailure, currentPIN: Fixture.shortPIN, newPIN: "98765")
        #expect(client.clientPIN(change).status == .pinAuthInvalid)
        #expect(try client.pinRetries() == 5)
        #expect(try client.token(Fixture.shortPIN, pinProtocol).value.count == 32)
    }

    @Test("the key agreement key stays the same after a correct PIN")
    func correctPINKeepsKeyAgreement() throws {
        let client = try TestClient()
        try client.setPIN()
        let session = try client.session(.one)
        _ = try client.token()
        let reply = client.clientPIN(try TestClient.tokenRequest(session, pin: Fixture.shortPIN))
        #expect(reply.status == .ok)
    }
}
