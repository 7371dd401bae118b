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
    /// Where the card is in its life; only the transitions below change it.
    private(set) var phase: Phase = .idle

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
        phase = .idle
    }

    /// Before a command reaches the authenticator: a card that is off or out of the field powers
    /// up at the command's time, and answers as a card just tapped.
    private mutating func powerUpForCommand(at now: CardInstant, _ what: @autoclosure () -> String) {
        switch phase {
        case .writing: preconditionFailure("\(what()) arrived while \(phase)")
        case .unpowered, .outOfField: powerUp(at: now)
        case .idle, .working: break
        }
    }

    /// The card lost power: everything volatile is gone — the front's selection, chains and
    /// pending responses, the authenticator's session, the simulated work.
    public mutating func powerOff(at now: CardInstant) {
        requireNoWrite("the card lost power")
        front.powerCycle()
        authenticator.powerOff(at: now)
        phase = .unpowered
    }

    /// The card left the field on its own (an injected fault): it loses power and answers
    /// nothing until it is powered again.
    public mutating func leaveField(at now: CardInstant) {
        powerOff(at: now)
        phase = .outOfField
    }

    /// Every piece of volatile state by name, each with whether it is as after power-up.
    public var volatileInventory: [(name: String, isInitial: Bool)] {
        front.state.inventory + authenticator.session.inventory + [("simulatedWork", workingUntil == nil)]
    }

    // MARK: - APDUs

    /// One command APDU arrives. A card out of the field is silent. A card that is off takes it
    /// at its front (cleared at power-off) and powers up when the first command reaches the
    /// authenticator, so that it answers as a card just tapped.
    public mutating func receive(_ apdu: [UInt8], in environment: CommandEnvironment) -> CardAction {
        switch phase {
        case .outOfField: return .silent
        case .writing: preconditionFailure("an APDU arrived while \(phase)")
        case .unpowered, .idle, .working: break
        }
        let work = timing.apdu
        let command: CardFront.Command
        switch front.receive(apdu) {
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
                    phase = .working(until: now.advanced(by: duration))
                    return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
                }
                phase = .idle
            }
            return runCTAP(request, paid: false, in: environment, work: work)
        case .ctapPoll(let request):
            powerUpForCommand(at: now, "a CTAP request")
            guard case .working(let until) = phase, !timing.isOff else {
                return runCTAP(request, paid: false, in: environment, work: work)
            }
            if now < until {
                return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
            }
            phase = .idle
            return runCTAP(request, paid: true, in: environment, work: work)
        case .u2fRegister(let challenge, let application):
            powerUpForCommand(at: now, "a U2F command")
            let outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment)
            return finishU2F(outcome, command: .u2fRegister, work: work + timing.duration(of: .u2fRegister, request: []))
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
            powerUpForCommand(at: now, "a U2F command")
            let outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                        keyHandle: keyHandle, in: environment)
            return finishU2F(outcome, command: .u2fAuthenticate,
                             work: work + timing.duration(of: .u2fAuthenticate, request: []))
        }
    }

    /// One CTAP2 request straight to the authenticator, bypassing the ISO 7816 front (no
    /// framing, no `9100`): the answer is status byte + CBOR. It reaches the authenticator
    /// whatever the field: a card that is off or out of the field is powered first.
    public mutating func receiveCTAP(_ request: [UInt8], in environment: CommandEnvironment) -> CardAction {
        powerUpForCommand(at: environment.now, "a request")
        let outcome = authenticator.process(request, in: environment)
        let command = CardCommand.ctap(request.first ?? 0)
        let work = outcome.ran ? workTime(of: request) : .zero
        guard !outcome.changes.isEmpty else {
            return .respond(Self.answer(authenticator.finish(outcome, durable: true)), ran: command, work: work,
                            faultActs: outcome.faultActs)
        }
        return write(outcome.changes, PendingWrite(command: command, kind: .direct(outcome), work: work,
                                                   workingUntil: workingUntil), faultActs: outcome.faultActs)
    }

    /// U2F REGISTER or AUTHENTICATE straight to the authenticator, bypassing the front: the
    /// answer is the response data followed by the status word, as in an APDU. A card that is
    /// off or out of the field is powered first.
    public mutating func receiveU2F(_ command: CardFront.Command, in environment: CommandEnvironment) -> CardAction {
        let outcome: U2FCommandOutcome
        let named: CardCommand
        switch command {
        case .u2fRegister(let challenge, let application):
            powerUpForCommand(at: environment.now, "a request")
            outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment)
            named = .u2fRegister
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
            powerUpForCommand(at: environment.now, "a request")
            outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                    keyHandle: keyHandle, in: environment)
            named = .u2fAuthenticate
        default:
            preconditionFailure("receiveU2F takes U2F REGISTER or AUTHENTICATE, not \(command)")
        }
        guard !outcome.changes.isEmpty else {
            return .respond(Self.apdu(authenticator.finish(outcome, durable: true)), ran: named, work: .zero,
                            faultActs: outcome.faultActs)
        }
        return write(outcome.changes, PendingWrite(command: named, kind: .directU2F(outcome), work: .zero,
                                                   workingUntil: workingUntil), faultActs: outcome.faultActs)
    }

    /// Runs a CTAP request from the front; `paid`: its time was spent answering `9100` polls.
    private mutating func runCTAP(_ request: [UInt8], paid: Bool, in environment: CommandEnvironment,
                                  work: Duration) -> CardAction {
        let outcome = authenticator.process(request, in: environment)
        let command = CardCommand.ctap(request[0])
        var work = work
        if outcome.ran && !paid { work += workTime(of: request) }
        let ran = outcome.ran ? command : nil
        guard !outcome.changes.isEmpty else {
            let response = Self.answer(authenticator.finish(outcome, durable: true))
            return .respond(front.complete(.ctap(response)).bytes, ran: ran, work: work, faultActs: outcome.faultActs)
        }
        return write(outcome.changes, PendingWrite(command: command, kind: .ctap(outcome), work: work,
                                                   workingUntil: workingUntil), faultActs: outcome.faultActs)
    }

    private mutating func finishU2F(_ outcome: U2FCommandOutcome, command: CardCommand, work: Duration) -> CardAction {
        guard !outcome.changes.isEmpty else {
            let result = authenticator.finish(outcome, durable: true)
            return .respond(front.complete(.u2f(Self.statusOf(result))).bytes, ran: command, work: work,
                            faultActs: outcome.faultActs)
        }
        return write(outcome.changes, PendingWrite(command: command, kind: .u2f(outcome), work: work,
                                                   workingUntil: workingUntil), faultActs: outcome.faultActs)
    }

    /// Into ``Phase/writing(_:)``: the caller makes `changes` durable, then calls ``finishWrite(succeeded:)``.
    private mutating func write(_ changes: [CardMutation], _ pending: PendingWrite, faultActs: [FaultAct]) -> CardAction {
        phase = .writing(pending)
        return .persist(changes, for: pending.command, faultActs: faultActs)
    }

    /// The caller made the pending changes durable (`succeeded`) or could not: the answer to send,
    /// and the card is back in the phase it was in before the command. A failed write leaves the
    /// card as before the command and answers CTAP1_ERR_OTHER (U2F: `6A80`, as the card always did).
    public mutating func finishWrite(succeeded: Bool) -> CardAction {
        guard case .writing(let pending) = phase else { preconditionFailure("finishWrite while \(phase): no write is pending") }
        phase = pending.phaseAfter
        defer { syncFront() }
        switch pending.kind {
        case .ctap(let outcome), .direct(let outcome):
            switch authenticator.finish(outcome, durable: succeeded) {
            case .persist(let next):
                let kind: PendingWrite.Kind = if case .ctap = pending.kind { .ctap(next) } else { .direct(next) }
                return write(next.changes, pending.next(kind), faultActs: next.faultActs)
            case .answer(let response):
                if case .direct = pending.kind {
                    return .respond(response, ran: pending.command, work: pending.work, faultActs: [])
                }
                let answer = front.complete(.ctap(response)).bytes
                frontAfterCTAP(pending.command, answered: response)
                return .respond(answer, ran: pending.command, work: pending.work, faultActs: [])
            }
        case .u2f(let outcome):
            let result = authenticator.finish(outcome, durable: succeeded)
            return .respond(front.complete(.u2f(Self.statusOf(result))).bytes, ran: pending.command, work: pending.work,
                            faultActs: [])
        case .directU2F(let outcome):
            return .respond(Self.apdu(authenticator.finish(outcome, durable: succeeded)), ran: pending.command, work: .zero,
                            faultActs: [])
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
