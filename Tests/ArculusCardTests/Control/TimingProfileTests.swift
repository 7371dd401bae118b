import ArculusCard
import Testing

/// The card's time runs on a ``ManualCardClock``: a wait moves it to the deadline at once, so
/// these tests never sleep and see exactly how long the card waited.
@Suite("Timing profiles")
struct TimingProfileTests {
    @Test("realistic: how long each command takes", arguments: [
        (CardCommand.ctap(.getAssertion), [UInt8]([0x02]), 110), (.ctap(.getNextAssertion), [0x08], 110),
        (.ctap(.makeCredential), [0x01], 310), (.ctap(.getInfo), [0x04], 0), (.ctap(.reset), [0x07], 250),
        (.ctap(.clientPIN), [0x06, 0xA2, 0x01, 0x01, 0x02, 0x01], 0), (.ctap(.clientPIN), [0x06, 0xA2, 0x01, 0x01, 0x02, 0x05], 55),
        (.ctap(.credentialManagement), [0x0A], 20), (.u2fRegister, [], 310), (.u2fAuthenticate, [], 110), (.select, [], 0),
    ])
    func durations(command: CardCommand, request: [UInt8], milliseconds: Int) {
        #expect(TimingProfile.realistic.duration(of: command, request: request[...]) == .milliseconds(Int64(milliseconds)))
        #expect(TimingProfile.off.duration(of: command, request: request[...]) == .zero)
    }

    @Test("profiles by name")
    func names() {
        #expect(TimingProfile.named("realistic") == .realistic)
        #expect(TimingProfile.named("OFF") == .off)
        #expect(TimingProfile.named("fast") == nil)
        #expect(TimingProfile.off.isOff && !TimingProfile.realistic.isOff)
    }

    /// A blank card on a manual clock.
    static func card(timing: TimingProfile = .realistic) throws -> (VirtualCard, ManualCardClock) {
        let clock = ManualCardClock()
        let card = try VirtualCard(clock: clock.read)
        card.use(clock)
        card.timing = timing
        return (card, clock)
    }

    @Test("P1=80: 9100 with keepalive PROCESSING until the operation's time has passed, then the result")
    func polling() throws {
        let (card, clock) = try Self.card(timing: .off)
        let record = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        card.timing = .realistic
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let start = clock.now
        let first = card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80))
        #expect(first.sw == 0x9100)
        #expect(first.data == [0x01])
        #expect(card.pinState.signatureCounter == 0, "not run yet")
        var polls = 0
        var result = card.exchangeWhole(ControlAPDU.pollResult)
        while result.sw == 0x9100 {
            polls += 1
            // The host's pause between two polls.
            clock.advance(by: .milliseconds(30))
            result = card.exchangeWhole(ControlAPDU.pollResult)
        }
        #expect(result.sw == 0x9000)
        #expect(polls == 4, "9100 to the polls at +4, +38, +72 and +106 ms of the 110 ms; the one at +140 ms runs it")
        #expect(start.duration(to: clock.now) >= .milliseconds(110))
        let assertion = try Assertion(CTAPResponse(bytes: result.data))
        #expect(assertion.verifies(with: record.publicKey))
    }

    @Test("the time spent answering 9100 is not spent again when the result is given")
    func notPaidTwice() throws {
        let slow = TimingProfile(name: "slow", apdu: .zero, signature: .milliseconds(600), keyGeneration: .zero,
                                 pinOperation: .zero, storageAccess: .zero, erase: .zero)
        let (card, clock) = try Self.card(timing: slow)
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80)).sw == 0x9100)
        clock.advance(by: .milliseconds(650))
        let waitsBefore = clock.waits.count
        let result = card.exchangeWhole(ControlAPDU.pollResult)
        #expect(result.sw == 0x9000)
        #expect(clock.waits.count == waitsBefore, "the result poll did not wait for the signature time again")
    }

    @Test("P1=00 (no polling): the answer simply takes the operation's time")
    func direct() throws {
        let (card, clock) = try Self.card()
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let start = clock.now
        let reply = card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion())))
        #expect(reply.sw == 0x9000 && reply.data.first == 0x00)
        #expect(start.duration(to: clock.now) == .milliseconds(114), "110 ms for the signature, 4 for the APDU")
        #expect(clock.waits.last == .milliseconds(114))
    }

    @Test("a cancel while the card works leaves the card untouched")
    func cancel() throws {
        let (card, _) = try Self.card(timing: .off)
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        card.timing = .realistic
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80)).sw == 0x9100)
        let cancelled = card.exchangeWhole(ControlAPDU.cancel)
        #expect(cancelled.sw == 0x9000 && cancelled.data == [0x2D])
        #expect(card.pinState.signatureCounter == 0)
    }

    @Test("commands that take no time are answered at once, even with P1=80; off adds nothing")
    func instant() throws {
        let (card, clock) = try Self.card()
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(ControlAPDU.ctap([0x04], p1: 0x80)).sw == 0x9000)
        #expect(clock.waits.allSatisfy { $0 == .milliseconds(4) }, "the APDUs' time alone")
        card.timing = .off
        let before = clock.waits.count
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        #expect(card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80)).sw == 0x9000)
        #expect(clock.waits.count == before, "no wait at all with timing off")
    }

    @Test("in process, CTAP straight to the authenticator takes the time too")
    func inProcess() throws {
        let (card, clock) = try Self.card()
        let start = clock.now
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: false)).status == .ok)
        #expect(start.duration(to: clock.now) == .milliseconds(310))
    }

    @Test("the system waiter waits in full, and an interrupt ends that wait and every later one at once")
    func systemWaiter() throws {
        let waiter = SystemCardWaiter()
        let clock = ContinuousClock()
        var outcome = CardWaitOutcome.interrupted
        let full = clock.measure {
            let now = CardInstant.monotonicNow()
            outcome = waiter.wait(until: now.advanced(by: .milliseconds(30)), for: .work, clock: CardInstant.monotonicNow, unless: { false })
        }
        #expect(outcome == .reached)
        #expect(full >= .milliseconds(30))
        #expect(waiter.wait(until: .monotonicNow(), for: .person, clock: CardInstant.monotonicNow, unless: { true }) == .settled)
        waiter.interrupt()
        let cut = clock.measure {
            outcome = waiter.wait(until: CardInstant.monotonicNow().advanced(by: .seconds(3600)), for: .work, clock: CardInstant.monotonicNow,
                                  unless: { false })
        }
        #expect(outcome == .interrupted)
        #expect(cut < .seconds(1))
    }

    @Test("a card whose waiter is interrupted answers at once: a delay of an hour is cut short, the answer as it was")
    func interruptedDelay() throws {
        let card = try VirtualCard()
        let waiter = SystemCardWaiter()
        card.waiter = waiter
        try card.injectFault(.delay(.seconds(3600)), on: .ctap(.getAssertion))
        waiter.interrupt()
        let clock = ContinuousClock()
        var answer: CTAPResponse?
        #expect(clock.measure { answer = card.send(.getAssertion, ControlAPDU.getAssertion()) } < .seconds(1))
        #expect(answer?.status == .noCredentials)
    }
}
