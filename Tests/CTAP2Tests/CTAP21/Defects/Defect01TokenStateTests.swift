import ArculusCard
import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Review defect 1: the pinUvAuthToken as CTAP 2.1 §6.5.2.1 defines it — a key agreement key and a
/// token per PIN/UV auth protocol, the usage timer, and what a use with user presence takes away.
/// Written at the CBOR level (TestClient) so that it also runs against the code before the rewrite.
@Suite("Defect 1: the pinUvAuthToken state (CTAP 2.1 §6.5.2.1)")
struct Defect01TokenStateTests {
    static func keyAgreement(_ client: TestClient, _ pinProtocol: PlatformPIN) throws -> CBORValue {
        try #require(try client.clientPIN([.int(1): .int(pinProtocol.rawValue), .int(2): .int(2)]).body()[int: 1])
    }

    /// A card with a PIN on the test clock, and a non-discoverable credential made before the PIN.
    static func card() throws -> (clock: ManualCardClock, client: TestClient, credential: MadeCredential) {
        let clock = ManualCardClock()
        let client = try TestClient()
        client.authenticator.use(clock)
        let made = try client.makeCredential()
        try client.setPIN()
        return (clock, client, made)
    }

    /// A getAssertion token for the fixture RP.
    static func gaToken(_ client: TestClient, _ pinProtocol: PlatformPIN) throws -> PlatformToken {
        try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
    }

    @Test("CTAP 2.1 §6.5.4 initialize(): each PIN/UV auth protocol has its own key agreement key")
    func keyAgreementPerProtocol() throws {
        let client = try TestClient()
        let one = try Self.keyAgreement(client, .one)
        let two = try Self.keyAgreement(client, .two)
        #expect(one != two)
        #expect(try Self.keyAgreement(client, .one) == one, "each stays until power-off")
        #expect(try Self.keyAgreement(client, .two) == two)
    }

    @Test("CTAP 2.1 §6.5.2.1, §6.5.4: a token got with one protocol does not verify under the other (PIN_AUTH_INVALID)",
          arguments: PlatformPIN.allCases)
    func tokenPerProtocol(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        let crossed = PlatformToken(pinProtocol: pinProtocol == .one ? .two : .one, value: token.value)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: crossed)).status == .pinAuthInvalid)
        let made = try client.makeCredential(token: token)
        #expect(made.authData.uv)
    }

    @Test("CTAP 2.1 §6.5.2.1 pinUvAuthTokenUsageTimerObserver: a token not used within the initial usage time limit (19.8 s on NFC) stops being in use → PIN_AUTH_INVALID",
          arguments: PlatformPIN.allCases)
    func initialUsageTimeLimit(pinProtocol: PlatformPIN) throws {
        let (clock, client, made) = try Self.card()
        let early = try Self.gaToken(client, pinProtocol)
        clock.advance(by: .milliseconds(19_700))
        #expect(try client.assert(allowList: [made.id], token: early).authData.uv, "still in use just before the limit")

        let late = try Self.gaToken(client, pinProtocol)
        clock.advance(by: .milliseconds(19_800))
        let request = TestClient.getAssertionRequest(allowList: [made.id], token: late)
        #expect(client.getAssertion(request).status == .pinAuthInvalid)
        #expect(client.getAssertion(request).status == .pinAuthInvalid, "and it stays so")
    }

    @Test("CTAP 2.1 §6.5.2.1: a token used within the initial limit stays in use until the max usage time period, 600 s after it was issued",
          arguments: PlatformPIN.allCases)
    func maxUsageTimePeriod(pinProtocol: PlatformPIN) throws {
        let (clock, client, made) = try Self.card()
        let token = try Self.gaToken(client, pinProtocol)
        let silent: CBORMap = ["up": false]  // a use with no presence leaves the permissions (§6.2.2 step 9)
        clock.advance(by: .seconds(1))
        #expect(try client.assert(allowList: [made.id], options: silent, token: token).authData.uv)
        clock.advance(by: .milliseconds(598_900))
        #expect(try client.assert(allowList: [made.id], options: silent, token: token).authData.uv, "599.9 s after issue")
        clock.advance(by: .milliseconds(100))
        let request = TestClient.getAssertionRequest(allowList: [made.id], options: silent, token: token)
        #expect(client.getAssertion(request).status == .pinAuthInvalid, "600 s after issue")
    }

    @Test("CTAP 2.1 §6.5.5.7.1 beginUsingPinUvAuthToken(userIsPresent: false): a PIN token carries no user presence, so getAssertion asks; declined → OPERATION_DENIED and the token is kept")
    func noCachedPresence() throws {
        // The userPresent flag of a PIN-issued token starts false, so its clearing after the
        // user present time limit (19.8 s) changes nothing a platform can see: presence is
        // collected for every up=true request, and a refusal consumes nothing (§6.2.2 step 9.1).
        let (_, client, made) = try Self.card()
        let token = try Self.gaToken(client, .two)
        var asked = 0
        client.authenticator.userPresence = {
            asked += 1
            return false
        }
        let request = TestClient.getAssertionRequest(allowList: [made.id], token: token)
        #expect(client.getAssertion(request).status == .operationDenied)
        #expect(asked == 1)
        client.authenticator.userPresence = { true }
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv, "the refusal did not use the token up")
    }

    @Test("CTAP 2.1 §6.1.2 step 14.4, §6.2.2 step 9.4: after makeCredential or getAssertion with user presence the token keeps no mc/ga permission → PIN_AUTH_INVALID",
          arguments: PlatformPIN.allCases)
    func permissionsClearedAfterPresence(pinProtocol: PlatformPIN) throws {
        let (_, client, made) = try Self.card()
        let both = PermissionBit.makeCredential | PermissionBit.getAssertion
        let afterAssertion = try client.token(Fixture.shortPIN, pinProtocol, permissions: both, rpId: Fixture.rpID)
        #expect(try client.assert(allowList: [made.id], token: afterAssertion).authData.uv)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: afterAssertion)).status
                == .pinAuthInvalid)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: afterAssertion)).status == .pinAuthInvalid)

        let afterCreation = try client.token(Fixture.shortPIN, pinProtocol, permissions: both, rpId: Fixture.rpID)
        #expect(try client.makeCredential(token: afterCreation).authData.uv)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: afterCreation)).status == .pinAuthInvalid)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: afterCreation)).status
                == .pinAuthInvalid)
    }

    @Test("CTAP 2.1 §6.5.5.7 (resetPinUvAuthToken() for all protocols): a new token with one protocol ends the other protocol's token")
    func newTokenEndsEveryProtocolsToken() throws {
        let client = try TestClient()
        try client.setPIN()
        let two = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        let one = try client.token(Fixture.shortPIN, .one, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: two)).status == .pinAuthInvalid)
        #expect(try client.makeCredential(token: one).authData.uv)
    }

    @Test("CTAP 2.1 §6.5.2.1, NFC binding: power-off ends the token of each protocol", arguments: PlatformPIN.allCases)
    func powerOffEndsToken(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        client.powerCycle()
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }

    @Test("CTAP 2.1 §6.5.5.6 changePIN (resetPinUvAuthToken() for all protocols): changePIN with one protocol ends a token of the other",
          arguments: PlatformPIN.allCases)
    func changePINEndsToken(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol == .one ? .two : .one).status == .ok)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }
}
