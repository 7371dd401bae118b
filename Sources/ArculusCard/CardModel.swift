import CTAP2
import ISO7816
import FIDOWire

/// Everything the emulated card is, as one value: the authenticator (its non-volatile memory,
/// its session), the ISO 7816 front and the phase the card is in (``Phase``: unpowered, idle,
/// working on a request behind `9100`, writing a command's changes, out of the field). Every
/// input — an APDU, a power change, the outcome of a write — is a transition that returns a
/// ``CardAction``; the caller (``VirtualCard``, a transport, a fuzzer) performs the I/O: it makes
/// changes durable, sleeps the simulated time, sends the answer, and logs the faults that acted.
/// The model reads no clock and calls nothing outside itself: time, the person and the armed
/// faults come in the ``CommandEnvironment``.
///
/// What the card forgets when it leaves the field is cleared in one place, ``powerOff(at:)``, and
/// its session starts in one place — for the reader's ``powerOn(at:)``, and for the first command
/// that reaches the authenticator of a card that is off.
public struct CardModel {
    /// The CTAP2 authenticator.
    public private(set) var authenticator: Authenticator
    /// The ISO 7816 / NFC front that APDUs go through.
    public private(set) var front: CardFront
    /// How long operations take (``TimingProfile/off``: as fast as possible).
    public var timing: TimingProfile = .off
    /// Where the card is in its life; only the transitions below change it. Whether it is
    /// powered is the authenticator's alone (its session: ``Authenticator/isPowered``), so the
    /// phase reads it there instead of keeping it a second time: off is ``Phase/unpowered``, or
    /// ``Phase/outOfField`` once it left the field by itself; powered, it is what it is doing.
    var phase: Phase {
        guard authenticator.isPowered else { return leftField ? .outOfField : .unpowered }
        return activity
    }
    /// What the powered card is doing: idle, working, writing or waiting for the person.
    private var activity: Phase = .idle
    /// The card, off, left the field by itself (an injected fault) rather than being powered off.
    private var leftField = false

    /// A card made of `authenticator` behind a front with `frontOptions`, powered and idle.
    public init(authenticator: Authenticator, frontOptions: CardFront.Options = .init()) {
        self.authenticator = authenticator
        let profile = authenticator.profile
        front = CardFront(configuration: .init(
            selectResponse: Array(profile.selectResponse.utf8), supportsCTAP2: profile.supportsCTAP2,
            supportsU2F: authenticator.u2fEnabled, maxMessageSize: profile.maxMsgSize, options: frontOptions,
            behaviour: CardFront.Behaviour(profile: profile)))
    }

    /// False from the moment the card left the field (an injected fault) until it is powered again.
    public var isInField: Bool {
        if case .outOfField = phase { false } else { true }
    }

    /// A card that needs a SELECT after authenticatorReset (``CardBehaviour/afterReset``)
    /// deselects its applet once a reset through the front succeeded.
    private mutating func frontAfterCTAP(_ command: CardCommand, answered response: [UInt8]) {
        guard command == .ctap(CTAPCommand.reset.rawValue), response.first == CTAPStatus.ok.rawValue,
              case .deselected(let word) = authenticator.profile.behaviour.afterReset else { return }
        front.deselect(answering: word)
    }

    /// The front offers U2F while the authenticator does (alwaysUv disables it, CTAP 2.1 §7.2.2).
    private mutating func syncFront() {
        if front.configuration.supportsU2F != authenticator.u2fEnabled {
            front.configuration.supportsU2F = authenticator.u2fEnabled
        }
    }

    // MARK: - Power

    /// The card entered the field (the reader powered it, or reset its field): the front and the
    /// authenticator's session start afresh, and the card is idle.
    public mutating func powerOn(at now: CardInstant) {
        requireNoWrite("the card was powered")
        front.powerCycle()
        powerUp(at: now)
    }

    /// The card powers up: the authenticator's session starts afresh (new key-agreement keys, no
    /// token) and the card is idle. The one place this happens: for ``powerOn(at:)``, and for the
    /// first command that reaches the authenticator of a card that is off or, sent straight to
    /// the authenticator, out of the field (a command reaches a contactless card only through a
    /// field that powers it). The front needs no reset then: power-off cleared it.
    private mutating func powerUp(at now: CardInstant) {
        authenticator.powerOn(at: now)
        activity = .idle
        leftField = false
    }

    /// Before a command reaches the authenticator: a card that is off or out of the field powers
    /// up at the command's time, and answers as a card just tapped.
    private mutating func powerUpForCommand(at now: CardInstant, _ what: @autoclosure () -> String) {
        switch phase {
        case .writing: preconditionFailure("\(what()) arrived while \(phase)")
        case .unpowered, .outOfField: powerUp(at: now)
        case .idle, .working, .awaitingPresence: break
        }
    }

    /// The card lost power: everything volatile is gone — the front's selection, chains and
    /// pending responses, the authenticator's session, the simulated work.
    public mutating func powerOff(at now: CardInstant) {
        requireNoWrite("the card lost power")
        front.powerCycle()
        authenticator.powerOff(at: now)
        activity = .idle
        leftField = false
    }

    /// The card left the field on its own (an injected fault): it loses power and answers
    /// nothing until it is powered again.
    public mutating func leaveField(at now: CardInstant) {
        powerOff(at: now)
        leftField = true
    }

    /// Every piece of volatile state by name, each with whether it is as after power-up.
    public var volatileInventory: [(name: String, isInitial: Bool)] {
        front.state.inventory + authenticator.session.inventory
            + [("simulatedWork", workingUntil == nil), ("presenceWait", presenceWait == nil)]
    }

    // MARK: - APDUs

    /// One command APDU arrives. A card out of the field is silent. A card that is off takes it
    /// at its front (cleared at power-off) and powers up when the first command reaches the
    /// authenticator, so that it answers as a card just tapped.
    public mutating func receive(_ apdu: [UInt8], in environment: CommandEnvironment) -> CardAction {
        switch phase {
        case .outOfField: return .silent
        case .writing: preconditionFailure("an APDU arrived while \(phase)")
        case .awaitingPresence(let wait) where !wait.deferred: preconditionFailure("an APDU arrived while \(phase)")
        case .unpowered, .idle, .working, .awaitingPresence: break
        }
        let work = timing.apdu
        let step = front.receive(apdu)
        // The front holds the request behind a `9100`; the phase only says what the card does
        // with it. Any APDU but a poll (another command, a cancel) drops it at the front, and so
        // the work on it, or the prompt for it, ends here too.
        if phase.isOnDeferredRequest, !front.holdsDeferredRequest {
            if case .command(.ctapPoll) = step {} else { activity = .idle }
        }
        let command: CardFront.Command
        switch step {
        case .answer(let response): return .respond(response.bytes, ran: nil, work: work, faultActs: [])
        case .command(let whole): command = whole
        }
        let now = environment.now
        // A fault that does not act leaves the armed faults as they were: the command runs with
        // the environment it came with.
        if !environment.faults.isEmpty, let named = Self.faultScope(of: command) {
            var faults = environment.faults
            if let word = faults.statusWord(insteadOf: named) {
                return .respond(front.complete(.statusWord(word)).bytes, ran: nil, work: work, faultActs: faults.takeActs())
            }
        }
        switch command {
        case .select:
            return .respond(front.complete(.run).bytes, ran: .select, work: work, faultActs: [])
        case .ctap(let request, let mayDefer):
            powerUpForCommand(at: now, "a CTAP request")
            if front.awaitedCommandWasChained { authenticator.requestArrivedChained() }
            if mayDefer && !timing.isOff {
                // The client polls for this request: the card works on it for its time first.
                let duration = workTime(of: request)
                guard duration == .zero else {
                    activity = .working(until: now.advanced(by: duration))
                    return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
                }
                activity = .idle
            }
            return run(.front(request, polled: mayDefer, paid: false), in: environment, work: work)
        case .ctapPoll(let request):
            powerUpForCommand(at: now, "a CTAP request")
            if case .awaitingPresence(let wait) = phase { return poll(wait, in: environment, work: work) }
            guard case .working(let until) = phase, !timing.isOff else {
                return run(.front(request, polled: true, paid: false), in: environment, work: work)
            }
            if now < until {
                return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
            }
            activity = .idle
            return run(.front(request, polled: true, paid: true), in: environment, work: work)
        case .u2fRegister, .u2fAuthenticate:
            powerUpForCommand(at: now, "a U2F command")
            return run(.frontU2F(command), in: environment, work: work)
        }
    }

    /// One CTAP2 request straight to the authenticator, bypassing the ISO 7816 front (no
    /// framing, no `9100`): the answer is status byte + CBOR. It reaches the authenticator
    /// whatever the field: a card that is off or out of the field is powered first.
    public mutating func receiveCTAP(_ request: [UInt8], in environment: CommandEnvironment) -> CardAction {
        powerUpForCommand(at: environment.now, "a request")
        return run(.direct(request), in: environment, work: .zero)
    }

    /// U2F REGISTER or AUTHENTICATE straight to the authenticator, bypassing the front: the
    /// answer is the response data followed by the status word, as in an APDU. A card that is
    /// off or out of the field is powered first.
    public mutating func receiveU2F(_ command: CardFront.Command, in environment: CommandEnvironment) -> CardAction {
        switch command {
        case .u2fRegister, .u2fAuthenticate: powerUpForCommand(at: environment.now, "a request")
        default: preconditionFailure("receiveU2F takes U2F REGISTER or AUTHENTICATE, not \(command)")
        }
        return run(.directU2F(command), in: environment, work: .zero)
    }

    /// Runs a command on the authenticator and concludes it: its answer, the write of its
    /// changes, or — when it stopped at an undecided test of user presence — the wait for the
    /// person (``CardAction/awaitPresence(_:until:mayDefer:)``). `work` is the time already
    /// counted for the APDU; the command's own time is added unless it was spent answering `9100`.
    private mutating func run(_ request: PresenceWait.Request, in environment: CommandEnvironment,
                              work: Duration) -> CardAction {
        var work = work
        let kind: PendingWrite.Kind
        let command: CardCommand
        let ran: Bool
        let prompt: PresencePrompt?
        // Taken from the outcome here, where it is at hand: read through the kind, each copied
        // the whole outcome.
        let changes: [CardMutation], faultActs: [FaultAct]
        // A command straight to the authenticator while the host polls for a prompt withdraws it.
        if case .awaitingPresence = phase { activity = .idle }
        switch request {
        case .front(let bytes, _, _), .direct(let bytes):
            let outcome = authenticator.process(bytes, in: environment)
            command = .ctap(bytes.first ?? 0)
            ran = outcome.ran
            prompt = outcome.awaitsPresence
            changes = outcome.changes
            faultActs = outcome.faultActs
            if case .front(_, _, let paid) = request {
                if outcome.ran && !paid { work += workTime(of: bytes) }
                kind = .ctap(outcome)
            } else {
                if outcome.ran { work += workTime(of: bytes) }
                kind = .direct(outcome)
            }
        case .frontU2F(let whole), .directU2F(let whole):
            let outcome: U2FCommandOutcome
            switch whole {
            case .u2fRegister(let challenge, let application):
                outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment)
                command = .u2fRegister
            case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
                outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                        keyHandle: keyHandle, in: environment)
                command = .u2fAuthenticate
            default:
                preconditionFailure("a U2F run of \(whole)")
            }
            ran = true
            prompt = outcome.awaitsPresence
            changes = outcome.changes
            faultActs = outcome.faultActs
            if case .frontU2F = request {
                work += timing.duration(of: command, request: [])
                kind = .u2f(outcome)
            } else {
                kind = .directU2F(outcome)
            }
        }
        if let prompt {
            let now = environment.now
            let wait = PresenceWait(request: request, prompt: prompt, since: now,
                                    deadline: now.advanced(by: presenceTimeout), work: work)
            activity = .awaitingPresence(wait)
            return .awaitPresence(prompt, until: wait.deadline, mayDefer: wait.mayDefer)
        }
        return conclude(kind, changes: changes, faultActs: faultActs, command: command, ran: ran ? command : nil,
                        work: work)
    }

    /// The one "answer or write" of a command that ran: with no `changes` (its kind's) its answer
    /// goes at once, else the card goes into ``Phase/writing(_:)`` and its changes are made
    /// durable first.
    private mutating func conclude(_ kind: consuming PendingWrite.Kind, changes: [CardMutation], faultActs: [FaultAct],
                                   command: CardCommand, ran: CardCommand?, work: Duration) -> CardAction {
        guard changes.isEmpty else {
            return write(changes, PendingWrite(command: command, kind: kind, work: work, workingUntil: workingUntil),
                         faultActs: faultActs)
        }
        return .respond(answer(kind, command: command, durable: true), ran: ran, work: work, faultActs: faultActs)
    }

    /// A finished command's answer as it leaves the card: through the front (its framing) or
    /// straight (status + CBOR; U2F data + status word). A command that goes on after a write
    /// (a PIN check) has none yet: ``finishWrite(succeeded:)`` takes it on.
    private mutating func answer(_ kind: consuming PendingWrite.Kind, command: CardCommand, durable: Bool) -> [UInt8] {
        let direct = kind.isDirect
        switch consume kind {
        case .ctap(let outcome), .direct(let outcome):
            return framed(Self.answer(authenticator.finish(outcome, durable: durable)), direct: direct, command: command)
        case .u2f(let outcome):
            return front.complete(.u2f(Self.statusOf(authenticator.finish(outcome, durable: durable)))).bytes
        case .directU2F(let outcome):
            return Self.apdu(authenticator.finish(outcome, durable: durable))
        }
    }

    /// A CTAP response as it leaves the card: as it is when sent straight to the authenticator,
    /// else framed by the front (which a reset that needs a SELECT after it deselects).
    private mutating func framed(_ response: [UInt8], direct: Bool, command: CardCommand) -> [UInt8] {
        guard !direct else { return response }
        let bytes = front.complete(.ctap(response)).bytes
        frontAfterCTAP(command, answered: response)
        return bytes
    }

    // MARK: - The person

    /// How long the card waits for the person's answer before it gives up
    /// (CTAP2_ERR_USER_ACTION_TIMEOUT; U2F: `6985`).
    public var presenceTimeout: Duration = .seconds(30)

    /// The command waiting for the person's answer to its test of user presence, if one is.
    public var presenceWait: PresenceWaitState? {
        guard case .awaitingPresence(let wait) = phase else { return nil }
        return PresenceWaitState(prompt: wait.prompt, since: wait.since, deadline: wait.deadline, answer: wait.answer,
                                 isDeferred: wait.deferred)
    }

    /// The person answered the waiting command's prompt; the command runs with the answer when the
    /// driver goes on (``continueAfterPresence(in:givingUp:)``) or, for a host that polls, at its
    /// next poll. Nothing happens when no command waits.
    public mutating func answerPresence(approved: Bool) {
        guard case .awaitingPresence(var wait) = phase else { return }
        wait.answer = approved
        activity = .awaitingPresence(wait)
    }

    /// After ``CardAction/awaitPresence(_:until:mayDefer:)``, once the driver has asked: the command
    /// runs with the person's answer if there is one; without one, a host that polls is answered
    /// `9100` with keepalive UPNEEDED (and is answered again at its polls), and any other command
    /// is refused as timed out — at its deadline, or at once when `givingUp` (the card is going
    /// away): CTAP2_ERR_USER_ACTION_TIMEOUT, U2F `6985`.
    public mutating func continueAfterPresence(in environment: CommandEnvironment, givingUp: Bool = false) -> CardAction {
        guard case .awaitingPresence(var wait) = phase else { return .silent }
        if let approved = wait.answer { return rerun(wait, approved: approved, in: environment) }
        if wait.mayDefer && !givingUp && environment.now < wait.deadline {
            wait.deferred = true
            activity = .awaitingPresence(wait)
            return .respond(front.complete(.awaitingUser).bytes, ran: nil, work: wait.work, faultActs: [])
        }
        return timeOut(wait)
    }

    /// A poll while the card waits for the person: the command runs once the answer is there,
    /// times out at the deadline, and is answered `9100` UPNEEDED until then.
    private mutating func poll(_ wait: PresenceWait, in environment: CommandEnvironment, work: Duration) -> CardAction {
        if let approved = wait.answer { return rerun(wait, approved: approved, in: environment, work: work) }
        guard environment.now < wait.deadline else { return timeOut(wait) }
        return .respond(front.complete(.awaitingUser).bytes, ran: nil, work: work, faultActs: [])
    }

    /// The waiting command again, with the person's answer (its time counted once more from here).
    private mutating func rerun(_ wait: PresenceWait, approved: Bool, in environment: CommandEnvironment,
                                work: Duration? = nil) -> CardAction {
        activity = .idle
        var answered = environment
        answered.presence = approved ? .present : .declined
        switch wait.request {
        case .front(let bytes, let polled, _): return run(.front(bytes, polled: polled, paid: false), in: answered, work: work ?? timing.apdu)
        case .frontU2F(let command): return run(.frontU2F(command), in: answered, work: work ?? timing.apdu)
        case .direct, .directU2F: return run(wait.request, in: answered, work: .zero)
        }
    }

    /// The person never answered: CTAP2_ERR_USER_ACTION_TIMEOUT (U2F: `6985`), nothing changed.
    private mutating func timeOut(_ wait: PresenceWait) -> CardAction {
        activity = .idle
        let timeout = [CTAPStatus.userActionTimeout.rawValue]
        let bytes: [UInt8] = switch wait.request {
        case .front: front.complete(.ctap(timeout)).bytes
        case .direct: timeout
        case .frontU2F: front.complete(.u2f(.failure(.conditionsNotSatisfied))).bytes
        case .directU2F: StatusWord.conditionsNotSatisfied.bytes
        }
        return .respond(bytes, ran: wait.prompt.command, work: .zero, faultActs: [])
    }

    /// Into ``Phase/writing(_:)``: the caller makes `changes` durable, then calls ``finishWrite(succeeded:)``.
    private mutating func write(_ changes: [CardMutation], _ pending: PendingWrite, faultActs: [FaultAct]) -> CardAction {
        activity = .writing(pending)
        return .persist(changes, for: pending.command, faultActs: faultActs)
    }

    /// The caller made the pending changes durable (`succeeded`) or could not: the answer to send,
    /// and the card is back in the phase it was in before the command. A failed write leaves the
    /// card as before the command and answers CTAP1_ERR_OTHER (U2F: `6A80`, as the card always did).
    public mutating func finishWrite(succeeded: Bool) -> CardAction {
        guard case .writing(let pending) = phase else { preconditionFailure("finishWrite while \(phase): no write is pending") }
        activity = pending.phaseAfter
        defer { syncFront() }
        // A command that goes on once its first changes are durable (a PIN check) writes again.
        switch pending.kind {
        case .ctap(let outcome), .direct(let outcome):
            switch authenticator.finish(outcome, durable: succeeded) {
            case .persist(let next):
                let kind: PendingWrite.Kind = pending.kind.isDirect ? .direct(next) : .ctap(next)
                return write(next.changes, pending.next(kind), faultActs: next.faultActs)
            case .answer(let response):
                return .respond(framed(response, direct: pending.kind.isDirect, command: pending.command),
                                ran: pending.command, work: pending.work, faultActs: [])
            }
        case .u2f, .directU2F:
            return .respond(answer(pending.kind, command: pending.command, durable: succeeded), ran: pending.command,
                            work: pending.work, faultActs: [])
        }
    }

    // MARK: - State control

    /// Changes a test double makes directly, once they are durable.
    public mutating func commit(_ changes: [CardMutation]) {
        requireNoWrite("a state control committed changes")
        authenticator.commitChanges(changes)
        syncFront()
    }

    /// Runs a state control on the authenticator (it may draw random values or forget the PIN
    /// session); the caller makes any changes it returns durable, then ``commit(_:)``s them.
    public mutating func withAuthenticator<T, E: Error>(_ body: (inout Authenticator) throws(E) -> T) throws(E) -> T {
        requireNoWrite("a state control ran")
        return try body(&authenticator)
    }

    // MARK: - Helpers

    /// When the simulated work going on ends, if the card is working.
    private var workingUntil: CardInstant? {
        if case .working(let until) = phase { until } else { nil }
    }

    /// The simulated time a CTAP request takes to run (zero with timing off).
    private func workTime(of request: [UInt8]) -> Duration {
        guard !timing.isOff, let byte = request.first else { return .zero }
        return timing.duration(of: .ctap(byte), request: request[...])
    }

    /// Nothing but ``finishWrite(succeeded:)`` may happen while writing.
    private func requireNoWrite(_ what: @autoclosure () -> String) {
        if case .writing = phase { preconditionFailure("\(what()) while \(phase)") }
    }

    /// The answer of a command that changed nothing durable.
    private static func answer(_ finished: FinishedCommand) -> [UInt8] {
        guard case .answer(let response) = finished else { preconditionFailure("a command without changes asked to persist") }
        return response
    }

    /// A U2F result as APDU bytes: data + `9000`, or the status word alone.
    private static func apdu(_ result: U2FResult) -> [UInt8] {
        switch statusOf(result) {
        case .success(let data): ResponseAPDU(data: data, statusWord: .success).bytes
        case .failure(let word): word.bytes
        }
    }

    private static func statusOf(_ result: U2FResult) -> U2FOutcome {
        switch result {
        case .success(let data): .success(data)
        case .conditionsNotSatisfied: .failure(.conditionsNotSatisfied)
        case .wrongData: .failure(.wrongData)
        }
    }

    /// The command a fault scope names for a whole command from the front (polls are none).
    static func faultScope(of command: CardFront.Command) -> CardCommand? {
        switch command {
        case .select: .select
        case .ctap(let request, _): request.first.map { .ctap($0) }
        case .ctapPoll: nil
        case .u2fRegister: .u2fRegister
        case .u2fAuthenticate: .u2fAuthenticate
        }
    }
}
