import ArculusCard
import CardTestSupport
import CTAPClient
import Testing
import FIDOWire

/// clientPIN from the platform side, against the in-process card.
@Suite("clientPIN", .timeLimit(.minutes(1)))
struct ClientPINTests {
    static let versions: [Int?] = [nil, 1, 2]

    @Test("setPIN: the card reports clientPin true and 8 retries", arguments: versions)
    func setPIN(version: Int?) throws {
        let (client, transport) = try Fixture.client()
        client.forcedPINProtocolVersion = version
        try client.setPIN(Fixture.pin)
        #expect(client.info.isPINSet == true)
        #expect(transport.card.pinState.isSet)
        #expect(try client.pinRetries().retries == 8)
        #expect(try client.pinRetries().powerCycleRequired == false)
    }

    @Test("a second setPIN: CTAP2_ERR_PIN_AUTH_INVALID")
    func setPINTwice() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let error = Fixture.error { try client.setPIN("654321") }
        #expect(error == .ctap(CTAPError(status: .pinAuthInvalid, command: .clientPIN, subcommand: "setPIN")))
    }

    @Test("changePIN: the new PIN gives tokens, the old one costs a retry", arguments: versions)
    func changePIN(version: Int?) throws {
        let (client, _) = try Fixture.clientWithPIN(protocolVersion: version)
        try client.changePIN(from: Fixture.pin, to: "24681357")
        _ = try client.pinToken(pin: "24681357", permissions: .makeCredential, rpID: Fixture.rpID)
        let error = Fixture.error { _ = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID) }
        #expect(error == .ctap(CTAPError(status: .pinInvalid, command: .clientPIN,
                                         subcommand: "getPinUvAuthTokenUsingPinWithPermissions")))
        #expect(try client.pinRetries().retries == 7)
    }

    @Test("changePIN with a wrong current PIN: CTAP2_ERR_PIN_INVALID, PIN unchanged")
    func changePINWrong() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let error = Fixture.error { try client.changePIN(from: "000000", to: "24681357") }
        #expect(error == .ctap(CTAPError(status: .pinInvalid, command: .clientPIN, subcommand: "changePIN")))
        _ = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID)
    }

    @Test("an mc or ga token without rpID on a CTAP 2.1 card: invalidArgument, nothing sent, no attempt spent",
          arguments: [TokenPermissions.makeCredential, .getAssertion, [.makeCredential, .credentialManagement]])
    func tokenNeedsRPID(permissions: TokenPermissions) throws {
        let (client, transport) = try Fixture.clientWithPIN()
        let sent = transport.sent.count
        #expect(Fixture.error { _ = try client.pinToken(pin: Fixture.pin, permissions: permissions) }
            == .invalidArgument("a token with the makeCredential or getAssertion permission is for one RP: pass rpID"))
        #expect(transport.sent.count == sent)
        #expect(try client.pinRetries().retries == 8)
    }

    @Test("a card without pinUvAuthToken gets getPinToken (subcommand 5) and a token for mc and ga")
    func getPinToken() throws {
        let (client, transport) = try Fixture.clientWithPIN(try CardProfile.named("arculus-fido2"))
        #expect(!client.info.supportsPermissionTokens)
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential)
        #expect(token.permissions == [.makeCredential, .getAssertion])
        #expect(token.rpID == nil)
        #expect(token.pinProtocol.version == 1)
        let wrong = Fixture.error { _ = try client.pinToken(pin: "999999", permissions: .getAssertion) }
        #expect(wrong == .ctap(CTAPError(status: .pinInvalid, command: .clientPIN, subcommand: "getPinToken")))
        // No cm permission without pinUvAuthToken.
        #expect(Fixture.error { _ = try client.pinToken(pin: Fixture.pin, permissions: .credentialManagement) }
            == .unsupported("the card has no pinUvAuthToken option, so its PIN token allows makeCredential and getAssertion only"))
        _ = transport
    }

    @Test("three wrong PINs: INVALID, INVALID, AUTH_BLOCKED; after a tap the count goes on; at 0 PIN_BLOCKED")
    func lockout() throws {
        let (client, transport) = try Fixture.clientWithPIN()
        func attempt() -> CTAPStatus? {
            Fixture.ctapStatus { _ = try client.pinToken(pin: "000000", permissions: .getAssertion, rpID: Fixture.rpID) }
        }
        #expect(attempt() == .pinInvalid)
        #expect(attempt() == .pinInvalid)
        #expect(attempt() == .pinAuthBlocked)
        #expect(try client.pinRetries() == (5, true))
        #expect(attempt() == .pinAuthBlocked, "blocked until the card leaves the field")
        #expect(try client.pinRetries().retries == 5, "a blocked attempt costs nothing")

        try transport.powerCycle()
        let reopened = try CTAPClient(transport: transport)
        #expect(try reopened.pinRetries() == (5, false))
        func again() -> CTAPStatus? {
            Fixture.ctapStatus { _ = try reopened.pinToken(pin: "000000", permissions: .getAssertion, rpID: Fixture.rpID) }
        }
        #expect(again() == .pinInvalid)
        #expect(again() == .pinInvalid)
        #expect(again() == .pinAuthBlocked)
        try transport.powerCycle()
        let last = try CTAPClient(transport: transport)
        #expect(Fixture.ctapStatus { _ = try last.pinToken(pin: "000000", permissions: .getAssertion, rpID: Fixture.rpID) } == .pinInvalid)
        #expect(Fixture.ctapStatus { _ = try last.pinToken(pin: "000000", permissions: .getAssertion, rpID: Fixture.rpID) } == .pinBlocked)
        #expect(Fixture.ctapStatus { _ = try last.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID) } == .pinBlocked,
                "even the right PIN")
        #expect(try last.pinRetries().retries == 0)
    }

    @Test("a PIN the policy forbids is refused before anything is sent", arguments: [
        ("123", "the new PIN has 3 character(s); this card wants at least 4"),
        (String(repeating: "9", count: 64), "the new PIN is 64 bytes of UTF-8; at most 63 fit"),
        ("12\u{0}34", "the new PIN contains a NUL character"),
    ])
    func policy(pin: String, message: String) throws {
        let (client, transport) = try Fixture.client()
        let before = transport.sent.count
        #expect(Fixture.error { try client.setPIN(pin) } == .invalidArgument(message))
        #expect(transport.sent.count == before)
    }

    @Test("a PIN of 63 bytes and one of 4 code points in 8 bytes are accepted")
    func policyEdges() throws {
        let longest = String(repeating: "7", count: 63)
        let (client, transport) = try Fixture.client()
        try client.setPIN(longest)
        // The card holds all 63 bytes: that PIN opens it, and the same PIN one byte shorter does not.
        #expect(transport.card.pinState.isSet)
        #expect(transport.card.authenticator.pinLength == 63)
        #expect(try client.pinToken(pin: longest, permissions: .getAssertion, rpID: Fixture.rpID).value.count == 32)
        #expect(Fixture.ctapStatus { _ = try client.pinToken(pin: String(longest.dropLast()), permissions: .getAssertion, rpID: Fixture.rpID) }
                == .pinInvalid)
        let (other, otherTransport) = try Fixture.client()
        try other.setPIN("ééöö")
        // Four code points (eight bytes of UTF-8) meet a minimum of four.
        #expect(otherTransport.card.authenticator.pinLength == 4)
        let token = try other.pinToken(pin: "ééöö", permissions: .getAssertion, rpID: Fixture.rpID)
        #expect(token.value.count == 32)
        #expect(token.rpID == Fixture.rpID)
        #expect(try other.pinRetries().retries == 8)
    }

    @Test("a token without a PIN set: CTAP2_ERR_PIN_NOT_SET")
    func noPIN() throws {
        let (client, _) = try Fixture.client()
        #expect(Fixture.ctapStatus { _ = try client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID) } == .pinNotSet)
    }
}
