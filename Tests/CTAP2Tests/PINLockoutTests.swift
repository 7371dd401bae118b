import CardTestSupport
import CBOR
import ArculusCard
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Storage that records every state it is asked to save, and can refuse to save.
final class RecordingStorage: CardStorage {
    private(set) var saved: [CardState] = []
    var failSaves = false

    func load() throws(CardImageError) -> CardState? { saved.last }

    func save(_ state: CardState) throws(CardImageError) {
        if failSaves { throw CardImageError(path: "(test)", reason: .io("refused by the test")) }
        saved.append(state)
    }

    /// Records the state each commit leads to, as a snapshotting store would hold it.
    func commit(_ mutations: [CardMutation], onto _: CardState) throws(CardImageError) {
        if failSaves { throw CardImageError(path: "(test)", reason: .io("refused by the test")) }
        guard var state = saved.last else { throw CardImageError(path: "(test)", reason: .io("no state")) }
        for mutation in mutations { state.apply(mutation) }
        saved.append(state)
    }
}

@Suite("PIN retries and lockout (CTAP 2.1 §6.5.2.2, §6.5.5.7)")
struct PINLockoutTests {
    @Test("3 wrong → PIN_AUTH_BLOCKED until power cycle; 8 wrong → PIN_BLOCKED until reset", arguments: PlatformPIN.allCases)
    func fullLockout(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN(Fixture.shortPIN, pinProtocol)
        func attempt(_ pin: String) throws -> CTAPStatus? { try client.tokenReply(pin, pinProtocol).status }

        #expect(try attempt("0000") == .pinInvalid)
        #expect(try attempt("0001") == .pinInvalid)
        #expect(try attempt("0002") == .pinAuthBlocked)
        #expect(try client.pinRetries() == 5)
        #expect(try client.clientPIN([.int(2): .int(1)]).body()[int: 4] == true, "powerCycleState")
        #expect(try attempt(Fixture.shortPIN) == .pinAuthBlocked, "even the right PIN, until a power cycle")
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol).status == .pinAuthBlocked)
        #expect(try client.pinRetries() == 5, "a blocked attempt does not count")

        client.powerCycle()
        #expect(try client.clientPIN([.int(2): .int(1)]).body()[int: 4] == false)
        #expect(try client.token(Fixture.shortPIN, pinProtocol).value.count == 32)
        #expect(try client.pinRetries() == 8)

        // Eight wrong PINs in total, with a power cycle after every third.
        let expected: [CTAPStatus] = [.pinInvalid, .pinInvalid, .pinAuthBlocked,
                                      .pinInvalid, .pinInvalid, .pinAuthBlocked,
                                      .pinInvalid, .pinBlocked]
        for (index, status) in expected.enumerated() {
            #expect(try attempt("99\(index)9") == status, "wrong PIN #\(index + 1)")
            #expect(try client.pinRetries() == 7 - index)
            if index % 3 == 2 { client.powerCycle() }
        }
        #expect(try client.pinRetries() == 0)
        #expect(try attempt(Fixture.shortPIN) == .pinBlocked)
        client.powerCycle()
        #expect(try attempt(Fixture.shortPIN) == .pinBlocked, "a power cycle does not unblock")
        #expect(try client.changePIN(from: Fixture.shortPIN, to: "98765", pinProtocol).status == .pinBlocked)
        #expect(try client.pinRetries() == 0)

        #expect(client.send(CTAPByte.reset).status == .ok)
        #expect(!client.authenticator.state.isPINSet)
        #expect(client.clientPIN([.int(2): .int(1)]).status == .pinNotSet)
        #expect(try client.getInfo()[int: 4]?.mapValue?[text: "clientPin"] == false)
        #expect(try client.setPIN("24680", pinProtocol).status == .ok)
        #expect(try client.pinRetries() == 8)
    }

    @Test("PIN retries survive a power cycle and a reopen of the storage")
    func retriesArePersistent() throws {
        let storage = InMemoryStorage()
        let client = try TestClient(profile: .arculusFIDO21, storage: storage)
        try client.setPIN()
        #expect(try client.tokenReply("0000").status == .pinInvalid)
        #expect(try client.tokenReply("0001").status == .pinInvalid)
        client.powerCycle()
        #expect(try client.pinRetries() == 6)
        let reopened = TestClient(try makeAuthenticator(storage: storage))
        #expect(try reopened.pinRetries() == 6)
    }

    @Test("the decremented retry counter is saved before the PIN is compared", arguments: [true, false])
    func decrementSavedFirst(correctPIN: Bool) throws {
        let storage = RecordingStorage()
        let client = try TestClient(profile: .arculusFIDO21, storage: storage)
        try client.setPIN()
        let before = storage.saved.count
        let reply = try client.tokenReply(correctPIN ? Fixture.shortPIN : "0000")
        let writes = storage.saved[before...].map(\.pinRetries)
        if correctPIN {
            #expect(reply.status == .ok)
            #expect(writes == [7, 8], "decrement made durable, then restored after the match")
        } else {
            #expect(reply.status == .pinInvalid)
            #expect(writes == [7])
        }
    }

    @Test("if the decrement cannot be saved, the PIN is not checked (CTAP1_ERR_OTHER, no token)")
    func decrementNotSaved() throws {
        let storage = RecordingStorage()
        let client = try TestClient(profile: .arculusFIDO21, storage: storage)
        try client.setPIN()
        storage.failSaves = true
        #expect(try client.tokenReply(Fixture.shortPIN).status == .other)
        #expect(client.authenticator.state.pinRetries == 8)
        storage.failSaves = false
        #expect(try client.token().value.count == 32)
    }

    @Test("every state change is saved before the answer: makeCredential rk, setPIN")
    func savedBeforeAnswer() throws {
        let storage = RecordingStorage()
        var profile = CardProfile.arculusFIDO21
        profile.signatureCounterReservation = 1
        let client = try TestClient(profile: profile, storage: storage)
        try client.setPIN()
        #expect(storage.saved.last?.pinHash == pinHash(Fixture.shortPIN))
        let made = try client.makeCredential(rk: true, token: try client.token())
        #expect(storage.saved.last?.residentCredentials.map(\.id) == [made.id])
        #expect(storage.saved.last?.signatureCounter == made.authData.counter)
        let assertion = try client.assert(allowList: [made.id])
        #expect(storage.saved.last?.signatureCounter == assertion.authData.counter)
    }

    @Test("with a reservation of 64 the counter is saved 64 ahead: 63 assertions write nothing, the 64th saves the next ceiling")
    func counterReservation() throws {
        let storage = RecordingStorage()
        let client = try TestClient(profile: .arculusFIDO21, storage: storage)
        #expect(client.authenticator.profile.signatureCounterReservation == 64)
        let made = try client.makeCredential()
        #expect(made.authData.counter == 1)
        #expect(storage.saved.last?.signatureCounter == 64, "value 1 handed out, 1...64 reserved")
        let writes = storage.saved.count
        for expected in UInt32(2)...64 {
            #expect(try client.assert(allowList: [made.id]).authData.counter == expected)
        }
        #expect(storage.saved.count == writes, "assertions within the reservation write nothing")
        #expect(try client.assert(allowList: [made.id]).authData.counter == 65)
        #expect(storage.saved.count == writes + 1)
        #expect(storage.saved.last?.signatureCounter == 128)
    }

    @Test("a failed save leaves the card as it was and answers CTAP1_ERR_OTHER")
    func failedSave() throws {
        let storage = RecordingStorage()
        let client = try TestClient(profile: .arculusFIDO21, storage: storage)
        storage.failSaves = true
        #expect(client.makeCredential(TestClient.makeCredentialRequest(options: ["rk": true])).status == .other)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
        #expect(try client.setPIN().status == .other)
        #expect(!client.authenticator.state.isPINSet)
    }
}
