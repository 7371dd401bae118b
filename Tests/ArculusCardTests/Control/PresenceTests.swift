import ArculusCard
import Testing
import FIDOWire

/// User presence as a value: the card stops at its test of presence and its driver gets the
/// answer — at once (approve, decline, the in-process closure) or, in ask mode, when the person
/// gives it, with `9100` UPNEEDED to a host that polls meanwhile and CTAP2_ERR_USER_ACTION_TIMEOUT
/// when nobody answers in time. Every card here runs on a manual clock: nothing sleeps.
@Suite("User presence: approve, decline, ask")
struct PresenceTests {
    static func card(_ mode: PresenceMode) throws -> (VirtualCard, ManualCardClock) {
        let clock = ManualCardClock()
        let card = try VirtualCard(clock: clock.read)
        card.use(clock)
        card.presenceMode = mode
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        return (card, clock)
    }

    static let makeCredential = ControlAPDU.request(.makeCredential, makeCredentialParameters(userId: [1], rk: true))
    static let userPresenceNeeded: [UInt8] = [NFCBinding.keepaliveUserPresenceNeeded]

    @Test("ask, P1=80: 9100 UPNEEDED while the prompt is pending; approved, the next poll gives the credential")
    func askApprovedWhilePolling() throws {
        let (card, clock) = try Self.card(.ask)
        var prompts: [PendingPresence] = []
        card.onPresencePrompt = { prompts.append($0) }
        let first = card.exchangeWhole(ControlAPDU.ctap(Self.makeCredential, p1: 0x80))
        #expect(first.sw == 0x9100 && first.data == Self.userPresenceNeeded)
        let pending = try #require(card.pendingPresence)
        #expect(pending.id == 1 && pending.prompt == PresencePrompt(command: .ctap(.makeCredential), rpId: "example.com"))
        #expect(prompts == [pending])
        clock.advance(by: .seconds(2))
        let again = card.exchangeWhole(ControlAPDU.pollResult)
        #expect(again.sw == 0x9100 && again.data == Self.userPresenceNeeded)
        #expect(card.pendingPresence?.waiting == .seconds(2))
        #expect(card.credentials.isEmpty, "nothing made before the answer")
        try card.answerPresence(id: 1, approve: true)
        #expect(card.pendingPresence == nil, "answered")
        let made = card.exchangeWhole(ControlAPDU.pollResult)
        #expect(made.sw == 0x9000 && made.data.first == CTAPStatus.ok.rawValue)
        #expect(card.credentials.count == 1)
        #expect(clock.waits.isEmpty, "a host that polls is never made to wait")
    }

    @Test("ask, P1=80: declined → CTAP2_ERR_OPERATION_DENIED at the next poll; no answer in 30 s → CTAP2_ERR_USER_ACTION_TIMEOUT")
    func askDeclinedAndTimedOut() throws {
        let (card, clock) = try Self.card(.ask)
        #expect(card.exchangeWhole(ControlAPDU.ctap(Self.makeCredential, p1: 0x80)).sw == 0x9100)
        try card.answerPresence(id: 1, approve: false)
        #expect(card.exchangeWhole(ControlAPDU.pollResult).data == [CTAPStatus.operationDenied.rawValue])

        #expect(card.exchangeWhole(ControlAPDU.ctap(Self.makeCredential, p1: 0x80)).sw == 0x9100)
        #expect(card.pendingPresence?.id == 2)
        clock.advance(by: .seconds(29))
        #expect(card.exchangeWhole(ControlAPDU.pollResult).sw == 0x9100, "29 s: still waiting")
        clock.advance(by: .seconds(1))
        #expect(card.pendingPresence == nil, "expired: no longer to be answered")
        #expect(throws: PresenceError.noSuchPrompt(2)) { try card.answerPresence(id: 2, approve: true) }
        #expect(card.exchangeWhole(ControlAPDU.pollResult).data == [CTAPStatus.userActionTimeout.rawValue])
        #expect(card.pendingPresence == nil)
        #expect(throws: PresenceError.noSuchPrompt(2)) { try card.answerPresence(id: 2, approve: true) }
        #expect(card.credentials.isEmpty)
    }

    @Test("ask, P1=00 and straight to the authenticator: the card waits for the answer (up to the presence time-out)")
    func askBlocking() throws {
        let (card, clock) = try Self.card(.ask)
        clock.whileWaiting = { _ in
            if let pending = card.pendingPresence { try? card.answerPresence(id: pending.id, approve: true) }
        }
        let direct = card.exchangeWhole(ControlAPDU.ctap(Self.makeCredential))
        #expect(direct.sw == 0x9000 && direct.data.first == CTAPStatus.ok.rawValue)
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [2], rk: true)).status == .ok)
        #expect(card.credentials.count == 2)

        clock.whileWaiting = nil
        let start = clock.now
        card.presenceTimeout = .seconds(5)
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [3], rk: true)).status == .userActionTimeout)
        #expect(start.duration(to: clock.now) == .seconds(5))
        #expect(card.credentials.count == 2)
    }

    @Test("ask: a stop cuts the wait short (CTAP2_ERR_USER_ACTION_TIMEOUT at once); a wrong or stale ID is refused by name")
    func askInterruptedAndWrongID() throws {
        let card = try VirtualCard()
        card.presenceMode = .ask
        let waiter = SystemCardWaiter()
        card.waiter = waiter
        waiter.interrupt()
        let clock = ContinuousClock()
        var status: CTAPStatus?
        #expect(clock.measure { status = card.send(.reset).status } < .seconds(1))
        #expect(status == .userActionTimeout)
        #expect(throws: PresenceError.noSuchPrompt(1)) { try card.answerPresence(id: 1, approve: true) }
        #expect(PresenceError.noSuchPrompt(7).description == "no presence prompt 7 is pending")
    }

    @Test("ask: another command withdraws a prompt the host stopped polling for")
    func askWithdrawn() throws {
        let (card, _) = try Self.card(.ask)
        #expect(card.exchangeWhole(ControlAPDU.ctap(Self.makeCredential, p1: 0x80)).sw == 0x9100)
        #expect(card.pendingPresence != nil)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.pendingPresence == nil)
        #expect(throws: PresenceError.noSuchPrompt(1)) { try card.answerPresence(id: 1, approve: true) }
    }

    @Test("ask, U2F REGISTER: it waits; declined → 6985, approved → 9000")
    func askU2F() throws {
        let (card, clock) = try Self.card(.ask)
        var answer = false
        clock.whileWaiting = { _ in
            if let pending = card.pendingPresence {
                #expect(pending.prompt == PresencePrompt(command: .u2fRegister, rpId: nil))
                try? card.answerPresence(id: pending.id, approve: answer)
            }
        }
        let register: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x40] + [UInt8](repeating: 0x11, count: 64)
        #expect(card.exchangeWhole(register).sw == 0x6985)
        answer = true
        #expect(card.exchangeWhole(register).sw == 0x9000)
    }

    @Test("decline: CTAP2_ERR_OPERATION_DENIED at once, with no prompt; approve asks userPresence once per test of presence")
    func declineAndApprove() throws {
        let (card, clock) = try Self.card(.decline)
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: true)).status == .operationDenied)
        #expect(card.pendingPresence == nil && clock.waits.isEmpty)
        card.presenceMode = .approve
        var asked = 0
        card.userPresence = {
            asked += 1
            return true
        }
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: true)).status == .ok)
        #expect(card.send(.getInfo).status == .ok)
        #expect(asked == 1, "getInfo tests no presence")
    }
}
