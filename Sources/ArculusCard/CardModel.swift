import CTAP2
import ISO7816
import FIDOWire

/// Everything the emulated card is, as one value: the authenticator (its non-volatile memory,
/// its session), the ISO 7816 front, the simulated work state and whether the card is in the
/// field. Every input — an APDU, a power change, the outcome of a write — is a transition that
/// returns a ``CardAction``; the caller (``VirtualCard``, a transport, a fuzzer) performs the
/// I/O: it makes changes durable, sleeps the simulated time, sends the answer, and logs the
/// faults that acted. The model calls nothing outside itself: time, the person and the armed
/// faults come in the ``CommandEnvironment``.
///
/// What the card forgets when it leaves the field is cleared in one place, ``powerOff(at:)``.
public struct CardModel {
    /// The CTAP2 authenticator.
    public private(set) var authenticator: Authenticator
    /// The ISO 7816 / NFC front that APDUs go through.
    public private(set) var front: CardFront
    /// False from the moment the card left the field (an injected fault) until it is powered again.
    public private(set) var isInField = true
    /// How long operations take (``TimingProfile/off``: as fast as possible).
    public var timing: TimingProfile = .off
    /// The simulated work behind a `9100` answer.
    private var busy = BusyState()
    /// A command whose changes are being made durable.
    private var pendingWrite: PendingWrite?

    /// A card made of `authenticator` behind a front with `frontOptions`, powered.
    public init(authenticator: Authenticator, frontOptions: CardFront.Options = .init()) {
        self.authenticator = authenticator
        let profile = authenticator.profile
        front = CardFront(configuration: .init(
            selectResponse: Array(profile.selectResponse.utf8), supportsCTAP2: profile.supportsCTAP2,
            supportsU2F: authenticator.u2fEnabled, maxMessageSize: profile.maxMsgSize, options: frontOptions))
    }

    /// The front offers U2F while the authenticator does (alwaysUv disables it, CTAP 2.1 §7.2.2).
    private mutating func syncFront() {
        if front.configuration.supportsU2F != authenticator.u2fEnabled {
            front.configuration.supportsU2F = authenticator.u2fEnabled
        }
    }

    // MARK: - Power

    /// The card entered the field (the reader powered it).
    public mutating func powerOn(at now: CardInstant) {
        clearVolatileState()
        authenticator.powerOn(at: now)
    }

    /// The card lost power: everything volatile is gone — the front's selection, chains and
    /// pending responses, the authenticator's session, the simulated work.
    public mutating func powerOff(at now: CardInstant) {
        clearVolatileState()
        authenticator.powerOff(at: now)
    }

    /// The card left the field on its own (an injected fault): it loses power and answers
    /// nothing until it is powered again.
    public mutating func leaveField(at now: CardInstant) {
        powerOff(at: now)
        isInField = false
    }

    private mutating func clearVolatileState() {
        precondition(pendingWrite == nil, "power changed while a write was pending")
        isInField = true
        busy = BusyState()
        front.powerCycle()
    }

    /// Every piece of volatile state by name, each with whether it is as after power-up.
    public var volatileInventory: [(name: String, isInitial: Bool)] {
        front.state.inventory + authenticator.session.inventory
            + [("simulatedWork", busy.until == nil && busy.paidRequest == nil)]
    }

    // MARK: - APDUs

    /// One command APDU arrives.
    public mutating func receive(_ apdu: [UInt8], in environment: CommandEnvironment) -> CardAction {
        guard isInField else { return .silent }
        precondition(pendingWrite == nil, "an APDU arrived while a write was pending")
        let work = timing.apdu
        let command: CardFront.Command
        switch front.receive(apdu) {
        case .answer(let response): return .respond(response.bytes, ran: nil, work: work, faultActs: [])
        case .command(let whole): command = whole
        }
        let now = environment.now
        var environment = environment
        if let named = Self.faultScope(of: command), let word = environment.faults.statusWord(insteadOf: named) {
            return .respond(front.complete(.statusWord(word)).bytes, ran: nil, work: work,
                            faultActs: environment.faults.takeActs())
        }
        switch command {
        case .select:
            return .respond(front.complete(.run).bytes, ran: .select, work: work, faultActs: [])
        case .ctap(let request, let mayDefer):
            if mayDefer && busy.arrive(request, timing: timing, now: now) {
                return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
            }
            return runCTAP(request, in: environment, work: work)
        case .ctapPoll(let request):
            if busy.isStillWorking(on: request, timing: timing, now: now) {
                return .respond(front.complete(.deferred(polls: 0)).bytes, ran: nil, work: work, faultActs: [])
            }
            return runCTAP(request, in: environment, work: work)
        case .u2fRegister(let challenge, let application):
            let outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment)
            return finishU2F(outcome, command: .u2fRegister, work: work + timing.duration(of: .u2fRegister, request: []))
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
            let outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                        keyHandle: keyHandle, in: environment)
            return finishU2F(outcome, command: .u2fAuthenticate,
                             work: work + timing.duration(of: .u2fAuthenticate, request: []))
        }
    }

    /// One CTAP2 request straight to the authenticator, bypassing the ISO 7816 front (no
    /// framing, no simulated time): the answer is status byte + CBOR.
    public mutating func receiveCTAP(_ request: [UInt8], in environment: CommandEnvironment) -> CardAction {
        precondition(pendingWrite == nil, "a request arrived while a write was pending")
        let outcome = authenticator.process(request, in: environment)
        let command = CardCommand.ctap(request.first ?? 0)
        let work = outcome.ran ? busy.unpaidWork(for: request, timing: timing) : .zero
        guard !outcome.changes.isEmpty else {
            return .respond(Self.answer(authenticator.finish(outcome, durable: true)), ran: command, work: work,
                            faultActs: outcome.faultActs)
        }
        pendingWrite = PendingWrite(command: command, kind: .direct(outcome), work: work)
        return .persist(outcome.changes, for: command, faultActs: outcome.faultActs)
    }

    /// U2F REGISTER or AUTHENTICATE straight to the authenticator, bypassing the front: the
    /// answer is the response data followed by the status word, as in an APDU.
    public mutating func receiveU2F(_ command: CardFront.Command, in environment: CommandEnvironment) -> CardAction {
        precondition(pendingWrite == nil, "a request arrived while a write was pending")
        let outcome: U2FCommandOutcome
        let named: CardCommand
        switch command {
        case .u2fRegister(let challenge, let application):
            outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment)
            named = .u2fRegister
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
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
        pendingWrite = PendingWrite(command: named, kind: .directU2F(outcome), work: .zero)
        return .persist(outcome.changes, for: named, faultActs: outcome.faultActs)
    }

    private mutating func runCTAP(_ request: [UInt8], in environment: CommandEnvironment, work: Duration) -> CardAction {
        let outcome = authenticator.process(request, in: environment)
        let command = CardCommand.ctap(request[0])
        var work = work
        if outcome.ran { work += busy.unpaidWork(for: request, timing: timing) }
        let ran = outcome.ran ? command : nil
        guard !outcome.changes.isEmpty else {
            let response = Self.answer(authenticator.finish(outcome, durable: true))
            return .respond(front.complete(.ctap(response)).bytes, ran: ran, work: work, faultActs: outcome.faultActs)
        }
        pendingWrite = PendingWrite(command: command, kind: .ctap(outcome), work: work)
        return .persist(outcome.changes, for: command, faultActs: outcome.faultActs)
    }

    private mutating func finishU2F(_ outcome: U2FCommandOutcome, command: CardCommand, work: Duration) -> CardAction {
        guard !outcome.changes.isEmpty else {
            let result = authenticator.finish(outcome, durable: true)
            return .respond(front.complete(.u2f(Self.statusOf(result))).bytes, ran: command, work: work,
                            faultActs: outcome.faultActs)
        }
        pendingWrite = PendingWrite(command: command, kind: .u2f(outcome), work: work)
        return .persist(outcome.changes, for: command, faultActs: outcome.faultActs)
    }

    /// The caller made the pending changes durable (`succeeded`) or could not: the answer to send.
    /// A failed write leaves the card as before the command and answers CTAP1_ERR_OTHER (U2F:
    /// `6A80`, as the card always did).
    public mutating func finishWrite(succeeded: Bool) -> CardAction {
        guard let pending = pendingWrite else { preconditionFailure("finishWrite without a pending write") }
        pendingWrite = nil
        defer { syncFront() }
        switch pending.kind {
        case .ctap(let outcome), .direct(let outcome):
            switch authenticator.finish(outcome, durable: succeeded) {
            case .persist(let next):
                let kind: PendingWrite.Kind = if case .ctap = pending.kind { .ctap(next) } else { .direct(next) }
                pendingWrite = PendingWrite(command: pending.command, kind: kind, work: pending.work)
                return .persist(next.changes, for: pending.command, faultActs: next.faultActs)
            case .answer(let response):
                if case .direct = pending.kind {
                    return .respond(response, ran: pending.command, work: pending.work, faultActs: [])
                }
                return .respond(front.complete(.ctap(response)).bytes, ran: pending.command, work: pending.work, faultActs: [])
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
        authenticator.commitChanges(changes)
        syncFront()
    }

    /// Runs a state control on the authenticator (it may draw random values or forget the PIN
    /// session); the caller makes any changes it returns durable, then ``commit(_:)``s them.
    public mutating func withAuthenticator<T, E: Error>(_ body: (inout Authenticator) throws(E) -> T) throws(E) -> T {
        try body(&authenticator)
    }

    // MARK: - Helpers

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

    private struct PendingWrite {
        enum Kind {
            case ctap(CommandOutcome)
            case direct(CommandOutcome)
            case u2f(U2FCommandOutcome)
            case directU2F(U2FCommandOutcome)
        }
        let command: CardCommand
        let kind: Kind
        let work: Duration
    }
}

/// The simulated work behind a `9100` answer (with a timing profile on).
struct BusyState {
    /// When the operation behind the pending `9100` ends.
    var until: CardInstant?
    /// A CTAP request whose time was already spent answering `9100` polls.
    var paidRequest: [UInt8]?

    /// A request sent with P1 `80` arrives: whether the card answers `9100` while it works.
    mutating func arrive(_ request: [UInt8], timing: TimingProfile, now: CardInstant) -> Bool {
        guard !timing.isOff, let byte = request.first else { return false }
        paidRequest = nil
        let duration = timing.duration(of: .ctap(byte), request: request[...])
        until = duration > .zero ? now.advanced(by: duration) : nil
        return until != nil
    }

    /// A poll for `request`: whether the card is still working on it.
    mutating func isStillWorking(on request: [UInt8], timing: TimingProfile, now: CardInstant) -> Bool {
        guard !timing.isOff, !request.isEmpty, let until else { return false }
        if now < until { return true }
        self.until = nil
        paidRequest = request
        return false
    }

    /// The time `request` takes when it runs, unless it was spent answering polls already.
    mutating func unpaidWork(for request: [UInt8], timing: TimingProfile) -> Duration {
        guard !timing.isOff, let byte = request.first else { return .zero }
        if let paid = paidRequest, paid == request {
            paidRequest = nil
            return .zero
        }
        return timing.duration(of: .ctap(byte), request: request[...])
    }
}
