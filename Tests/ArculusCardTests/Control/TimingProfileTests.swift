#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import Testing

@Suite("Timing profiles")
struct TimingProfileTests {
    static func seconds(_ since: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - since
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

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

    @Test("P1=80: 9100 with keepalive PROCESSING until the operation's time has passed, then the result")
    func polling() throws {
        let card = try VirtualCard()
        let record = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        card.timing = .realistic
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let start = ContinuousClock.now
        let first = card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80))
        #expect(first.sw == 0x9100)
        #expect(first.data == [0x01])
        #expect(card.pinState.signatureCounter == 0, "not run yet")
        var polls = 0
        var result = card.exchangeWhole(ControlAPDU.pollResult)
        while result.sw == 0x9100 {
            polls += 1
            result = card.exchangeWhole(ControlAPDU.pollResult)
        }
        #expect(result.sw == 0x9000)
        #expect(polls >= 1)
        #expect(Self.seconds(start) >= 0.11)
        let assertion = try Assertion(CTAPResponse(bytes: result.data))
        #expect(assertion.verifies(with: record.publicKey))
    }

    @Test("the time spent answering 9100 is not spent again when the result is given")
    func notPaidTwice() throws {
        let card = try VirtualCard()
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        card.timing = TimingProfile(name: "slow", apdu: .zero, signature: .milliseconds(600), keyGeneration: .zero,
                                    pinOperation: .zero, storageAccess: .zero, erase: .zero)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80)).sw == 0x9100)
        usleep(650_000)
        let start = ContinuousClock.now
        let result = card.exchangeWhole(ControlAPDU.pollResult)
        #expect(result.sw == 0x9000)
        #expect(Self.seconds(start) < 0.4, "the result poll did not sleep the signature time again")
    }

    @Test("P1=00 (no polling): the answer simply takes the operation's time")
    func direct() throws {
        let card = try VirtualCard()
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        card.timing = .realistic
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let start = ContinuousClock.now
        let reply = card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion())))
        #expect(reply.sw == 0x9000 && reply.data.first == 0x00)
        #expect(Self.seconds(start) >= 0.11)
    }

    @Test("a cancel while the card works leaves the card untouched")
    func cancel() throws {
        let card = try VirtualCard()
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
        let card = try VirtualCard()
        card.timing = .realistic
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(ControlAPDU.ctap([0x04], p1: 0x80)).sw == 0x9000)
        card.timing = .off
        try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        #expect(card.exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()), p1: 0x80)).sw == 0x9000)
    }

    @Test("in process, CTAP straight to the authenticator takes the time too")
    func inProcess() throws {
        let card = try VirtualCard()
        card.timing = .realistic
        let start = ContinuousClock.now
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: false)).status == .ok)
        #expect(Self.seconds(start) >= 0.31)
    }
}
