import ArculusCard
import CBOR
import CTAP2
import Testing
import TestSupport

@Suite("authenticatorReset (CTAP 2.1 §6.6)")
struct ResetTests {
    @Test("reset wipes credentials and PIN; old credential IDs stop working", arguments: CardProfile.builtIn)
    func wipes(profile: CardProfile) throws {
        let client = try TestClient(profile: profile)
        let nonDiscoverable = try client.makeCredential()
        let discoverable = try client.makeCredential(userId: [2], rk: true)
        try client.setPIN()
        _ = try client.tokenReply("0000")
        let counter = client.authenticator.state.signatureCounter

        #expect(client.send(CTAPByte.reset).status == .ok)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
        #expect(!client.authenticator.state.isPINSet)
        #expect(client.clientPIN([.int(2): .int(1)]).status == .pinNotSet, "no PIN, no retries to count")
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [nonDiscoverable.id])).status == .noCredentials)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [discoverable.id])).status == .noCredentials)
        #expect(client.getAssertion(TestClient.getAssertionRequest()).status == .noCredentials)
        #expect(client.authenticator.state.signatureCounter >= counter, "the counter never goes backwards")
        // The card works as new.
        let fresh = try client.makeCredential()
        #expect(try client.assert(allowList: [fresh.id]).verifies(with: fresh.publicKey))
    }

    @Test("reset is allowed within 10 s of power-up, NOT_ALLOWED after")
    func window() throws {
        let client = try TestClient()
        let clock = ManualCardClock()
        client.authenticator.use(clock)
        try client.setPIN()
        clock.advance(by: .milliseconds(10_500))
        #expect(client.send(CTAPByte.reset).status == .notAllowed)
        #expect(client.authenticator.state.isPINSet)

        client.powerCycle()
        clock.advance(by: .seconds(9))
        #expect(client.send(CTAPByte.reset).status == .ok)
        #expect(!client.authenticator.state.isPINSet)
    }

    @Test("declined user presence → OPERATION_DENIED, nothing wiped")
    func declined() throws {
        let client = try TestClient()
        try client.setPIN()
        client.authenticator.userPresence = { false }
        #expect(client.send(CTAPByte.reset).status == .operationDenied)
        #expect(client.authenticator.state.isPINSet)
    }

    @Test("reset with parameters → INVALID_LENGTH")
    func withBody() throws {
        let client = try TestClient()
        try client.setPIN()
        #expect(client.send(CTAPByte.reset, [.int(1): 1]).status == .invalidLength)
        #expect(client.authenticator.state.isPINSet)
    }

    @Test("reset clears volatile state too: a token from before is gone")
    func clearsToken() throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token()
        #expect(client.send(CTAPByte.reset).status == .ok)
        try client.setPIN()
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
    }
}
