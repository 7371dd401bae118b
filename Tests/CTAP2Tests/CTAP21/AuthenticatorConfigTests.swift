import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// authenticatorConfig (CTAP 2.1 §6.11) on the reference card: who may configure, and
/// toggleAlwaysUv (§6.11.2) and enableEnterpriseAttestation (§6.11.1). setMinPINLength has its
/// own file.
@Suite("authenticatorConfig (CTAP 2.1 §6.11)")
struct AuthenticatorConfigTests {
    static func options(_ client: TestClient) throws -> CBORMap {
        try #require(try client.getInfo()[int: 4]?.mapValue)
    }

    // MARK: - Authentication

    @Test("CTAP 2.1 §6.11 step 4 (protected by user verification): a card with a PIN takes no configuration without a pinUvAuthParam → PUAT_REQUIRED",
          arguments: [ConfigSubcommand.enableEnterpriseAttestation, ConfigSubcommand.toggleAlwaysUv,
                      ConfigSubcommand.setMinPINLength])
    func puatRequired(subCommand: UInt64) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        #expect(client.config(subCommand, parameters: subCommand == ConfigSubcommand.setMinPINLength ? [.int(1): 6] : nil,
                              token: nil).status == .puatRequired)
        #expect(try Self.options(client)[text: "alwaysUv"] == false)
        #expect(try Self.options(client)[text: "ep"] == false)
        #expect(try client.getInfo()[int: 0x0D] == .int(4))
    }

    @Test("CTAP 2.1 §6.11 step 4 (the acfg permission): a token without the acfg permission → PIN_AUTH_INVALID; with acfg → OK",
          arguments: PlatformPIN.allCases)
    func acfgPermission(pinProtocol: PlatformPIN) throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let cm = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.credentialManagement)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: cm).status == .pinAuthInvalid)
        let mcga = try client.token(Fixture.shortPIN, pinProtocol)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: mcga).status == .pinAuthInvalid)
        #expect(try Self.options(client)[text: "alwaysUv"] == false)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: try client.configToken(pinProtocol)).status == .ok)
        #expect(try Self.options(client)[text: "alwaysUv"] == true)
    }

    @Test("CTAP 2.1 §6.11 step 4.2: pinUvAuthParam = authenticate(token, 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams); over anything else → PIN_AUTH_INVALID")
    func authenticatedMessage() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        let token = try client.configToken()
        let parameters: CBORMap = [.int(1): 6]
        let subCommand = ConfigSubcommand.setMinPINLength
        let wrongMessages: [(String, [UInt8])] = [
            ("without the 32×0xff prefix", [CTAPByte.config, UInt8(subCommand)] + CBOREncoder.encode(.map(parameters))),
            ("without subCommandParams", [UInt8](repeating: 0xFF, count: 32) + [CTAPByte.config, UInt8(subCommand)]),
            ("another subCommand", TestClient.configMessage(ConfigSubcommand.toggleAlwaysUv, parameters: parameters)),
            ("other parameters", TestClient.configMessage(subCommand, parameters: [.int(1): 7])),
        ]
        for (name, message) in wrongMessages {
            var request = TestClient.configRequest(subCommand, parameters: parameters, token: token)
            request[int: 4] = .bytes(token.authenticate(message))
            #expect(client.send(CTAPByte.config, request).status == .pinAuthInvalid, "\(name)")
        }
        #expect(try client.getInfo()[int: 0x0D] == .int(4))
        #expect(client.config(subCommand, parameters: parameters, token: token).status == .ok)
        #expect(try client.getInfo()[int: 0x0D] == .int(6))
    }

    @Test("CTAP 2.1 §6.11 step 4 (pinUvAuthProtocol): a pinUvAuthParam without pinUvAuthProtocol → MISSING_PARAMETER; an unsupported one → INVALID_PARAMETER")
    func protocolErrors() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        var request = TestClient.configRequest(ConfigSubcommand.toggleAlwaysUv, token: try client.configToken())
        request[int: 3] = nil
        #expect(client.send(CTAPByte.config, request).status == .missingParameter)
        request[int: 3] = 3
        #expect(client.send(CTAPByte.config, request).status == .invalidParameter)
    }

    @Test("CTAP 2.1 §6.11: a card without user verification configures without a token; subcommand 0xFF (vendorPrototype) or an unknown one → INVALID_SUBCOMMAND; no subCommand → MISSING_PARAMETER")
    func withoutPIN() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .ok)
        #expect(try Self.options(client)[text: "ep"] == true)
        #expect(client.config(0xFF, token: nil).status == .invalidSubcommand)
        #expect(client.config(0x04, token: nil).status == .invalidSubcommand)
        #expect(client.send(CTAPByte.config, [.int(2): .map([:])]).status == .missingParameter)
    }

    @Test("CTAP 2.1 §6.11: a card without authenticatorConfig → INVALID_COMMAND (arculus-fido21, arculus-fido2)",
          arguments: [CardProfile.arculusFIDO21, .arculusFIDO2])
    func noConfig(profile: CardProfile) throws {
        let client = try TestClient(profile: profile)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: nil).status == .invalidCommand)
        #expect(try Self.options(client)[text: "authnrCfg"] == nil)
    }

    // MARK: - toggleAlwaysUv

    @Test("CTAP 2.1 §6.11.2 toggleAlwaysUv, §7.2.3: with alwaysUv on, getInfo says alwaysUv true, makeCredUvNotRqd false and drops U2F_V2; toggled again, all back")
    func alwaysUvGetInfo() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        #expect(try Self.options(client)[text: "makeCredUvNotRqd"] == true)
        #expect(try client.getInfo()[int: 1] == ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"])
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: try client.configToken()).status == .ok)
        let on = try Self.options(client)
        #expect(on[text: "alwaysUv"] == true)
        #expect(on[text: "makeCredUvNotRqd"] == false)
        #expect(try client.getInfo()[int: 1] == ["FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"])
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: try client.configToken()).status == .ok)
        #expect(try Self.options(client)[text: "alwaysUv"] == false)
        #expect(try Self.options(client)[text: "makeCredUvNotRqd"] == true)
        #expect(try client.getInfo()[int: 1] == ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"])
    }

    @Test("CTAP 2.1 §6.1.2 and §6.2.2, the alwaysUv steps: makeCredential (rk or not) and getAssertion with up=true and no pinUvAuthParam → PUAT_REQUIRED; with a token → OK")
    func alwaysUvRequiresToken() throws {
        let client = try TestClient(profile: .reference)
        let made = try client.makeCredential()
        try client.setPIN()
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: try client.configToken()).status == .ok)
        for rk in [false, true] {
            #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["rk": .bool(rk)])).status == .puatRequired,
                    "rk: \(rk)")
        }
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .puatRequired)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], options: ["up": true])).status
                == .puatRequired)
        #expect(try client.assert(allowList: [made.id], options: ["up": false]).authData.up == false,
                "a silent assertion is not an alwaysUv operation")
        let mc = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(try client.makeCredential(token: mc).authData.uv)
        let ga = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        #expect(try client.assert(allowList: [made.id], token: ga).authData.uv)
    }

    @Test("CTAP 2.1 §7.2.3: with alwaysUv on the card answers no U2F: register and authenticate → wrong data")
    func alwaysUvEndsU2F() throws {
        let client = try TestClient(profile: .reference)
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        let registration = try U2FTests.register(client.authenticator, application: application)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: nil).status == .ok)
        #expect(client.authenticator.u2fRegister(challenge: U2FTests.challenge, application: application) == .wrongData)
        #expect(client.authenticator.u2fAuthenticate(control: 0x03, challenge: U2FTests.challenge, application: application,
                                                     keyHandle: registration.keyHandle) == .wrongData)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: nil).status == .ok)
        #expect(client.authenticator.u2fAuthenticate(control: 0x07, challenge: U2FTests.challenge, application: application,
                                                     keyHandle: registration.keyHandle) == .conditionsNotSatisfied)
    }

    @Test("CTAP 2.1 §6.11 step 4 (alwaysUv, except toggleAlwaysUv): with alwaysUv on and no PIN, every subcommand but toggleAlwaysUv needs a token → PUAT_REQUIRED")
    func alwaysUvWithoutPIN() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: nil).status == .ok)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .puatRequired)
        #expect(client.config(ConfigSubcommand.setMinPINLength, parameters: [.int(1): 6], token: nil).status == .puatRequired)
        #expect(client.config(ConfigSubcommand.toggleAlwaysUv, token: nil).status == .ok)
        #expect(try Self.options(client)[text: "alwaysUv"] == false)
    }

    // MARK: - enableEnterpriseAttestation

    static func enterpriseRequest(_ mode: Int, rpId: String = Fixture.rpID) -> CBORMap {
        var request = TestClient.makeCredentialRequest(rpId: rpId)
        request[int: 0x0A] = .int(mode)
        return request
    }

    @Test("CTAP 2.1 §6.1.2 step 9: enterprise attestation capable but not enabled (getInfo ep false) → INVALID_PARAMETER",
          arguments: [1, 2])
    func enterpriseBeforeEnabling(mode: Int) throws {
        let client = try TestClient(profile: .reference)
        #expect(try Self.options(client)[text: "ep"] == false)
        #expect(client.makeCredential(Self.enterpriseRequest(mode, rpId: "enterprise.example")).status == .invalidParameter)
    }

    @Test("CTAP 2.1 §6.11.1, §6.1.2 step 9, §7.1: enterpriseAttestation 2 (platform-managed) → epAtt true, packed, x5c the enterprise certificate; signature verifies")
    func platformManaged() throws {
        let client = try TestClient(profile: .reference)
        try client.setPIN()
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: try client.configToken()).status == .ok)
        #expect(try Self.options(client)[text: "ep"] == true)
        let body = try client.makeCredential(Self.enterpriseRequest(2)).body()
        #expect(body[int: 4] == true, "epAtt")
        let made = try MadeCredential(body, clientDataHash: Fixture.clientDataHash())
        let enterprise = try #require(client.authenticator.authenticator.enterpriseAttestation)
        try Self.expectAttestation(made, by: enterprise.certificate)
        let leaf = try X509Certificate(der: try #require(made.attestationStatement[text: "x5c"]?.arrayValue?.first?.bytesValue))
        #expect(leaf.subjectDescription.contains("Enterprise Attestation"))
        #expect(leaf != client.authenticator.attestation.certificate)
    }

    @Test("CTAP 2.1 §6.1.2 step 9 (vendor-facilitated, 1): an RP in enterpriseAttestationRPIDs gets epAtt and the enterprise certificate; another RP the batch attestation without epAtt")
    func vendorFacilitated() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .ok)
        let listed = try client.makeCredential(Self.enterpriseRequest(1, rpId: "enterprise.example")).body()
        #expect(listed[int: 4] == true)
        let enterprise = try #require(client.authenticator.authenticator.enterpriseAttestation)
        try Self.expectAttestation(try MadeCredential(listed, clientDataHash: Fixture.clientDataHash()), by: enterprise.certificate)

        let other = try client.makeCredential(Self.enterpriseRequest(1)).body()
        #expect(other[int: 4] == nil, "no epAtt for an RP not on the list")
        try Self.expectAttestation(try MadeCredential(other, clientDataHash: Fixture.clientDataHash()),
                                   by: client.authenticator.attestation.certificate)
        let plain = try client.makeCredential(TestClient.makeCredentialRequest(rpId: "enterprise.example")).body()
        #expect(plain[int: 4] == nil, "no enterpriseAttestation member, no enterprise attestation")
    }

    @Test("CTAP 2.1 §6.1.2 step 9: enterpriseAttestation other than the unsigned 1 or 2 (0, 3, a text string) → INVALID_OPTION",
          arguments: [CBORValue.int(0), .int(3), .text("1")])
    func badMode(mode: CBORValue) throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .ok)
        var request = TestClient.makeCredentialRequest()
        request[int: 0x0A] = mode
        #expect(client.makeCredential(request).status == .invalidOption)
    }

    @Test("CTAP 2.1 §6.11.1: enableEnterpriseAttestation twice is OK and ep stays true")
    func enableTwice() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .ok)
        #expect(client.config(ConfigSubcommand.enableEnterpriseAttestation, token: nil).status == .ok)
        #expect(try Self.options(client)[text: "ep"] == true)
        #expect(client.authenticator.state.enterpriseAttestationEnabled)
    }

    /// A packed attestation whose x5c leaf is `certificate` and whose signature it verifies.
    static func expectAttestation(_ made: MadeCredential, by certificate: X509Certificate,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(made.format == "packed", sourceLocation: sourceLocation)
        let statement = made.attestationStatement
        let x5c = try #require(statement[text: "x5c"]?.arrayValue, sourceLocation: sourceLocation)
        #expect(x5c.first == .bytes(certificate.der), sourceLocation: sourceLocation)
        let signature = try #require(statement[text: "sig"]?.bytesValue, sourceLocation: sourceLocation)
        #expect(try certificate.publicKey.isValidSignature(signature, for: made.authData.raw + made.clientDataHash),
                sourceLocation: sourceLocation)
    }
}
