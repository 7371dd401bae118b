import CTAP2
import FIDOWire

/// The test-double controls of one emulated card: injected faults and their log. Every
/// ``VirtualCard`` has one (``VirtualCard/control``); the card's state controls (PIN, counter,
/// credentials) are methods of the card itself, and its timing is ``VirtualCard/timing``.
///
/// Faults act at two kinds of place. Inside a command — a status word or CTAP status instead of
/// running it, a declined presence test, authenticator-data flags, signatures — the card model
/// acts them out itself: ``VirtualCard`` hands it the faults as a value (``armed``) in the
/// command's environment and ``record(_:)``s the acts the model returns with its action. At the
/// card's boundary — a torn write, leaving the field, a delay, an answer to one exact APDU —
/// ``VirtualCard`` asks here (``failsWrite(in:)``, ``leavesField(after:)``, …). Either way, each
/// time a fault acts it is counted, retired if one-shot, appended to ``log`` and passed to
/// ``onFaultInjected``.
///
/// Not thread-safe, like the card: use it from the thread that drives the card (a served card's
/// control channel runs its requests on the reader bridge's thread, between two APDUs).
public final class CardControl {
    /// The faults the card holds, in the order they were injected (the first matching one acts).
    public private(set) var faults: [InjectedFault] = []
    /// Every time a fault acted, oldest first (the last ``maximumLogLength`` entries).
    public private(set) var log: [FaultLogEntry] = []
    /// Called on the card's thread each time a fault acts (`arculus-card serve` prints it).
    public var onFaultInjected: ((FaultLogEntry) -> Void)?
    /// Called when the card leaves the field, with how long it stays away: a reader bridge takes
    /// the card off the reader for that long (`arculus-card serve` does).
    public var onLeaveField: ((Duration) -> Void)?

    /// How many log entries are kept.
    public static let maximumLogLength = 1000

    private var nextFaultID = 1

    /// Controls with no faults.
    public init() {}

    // MARK: - Faults

    /// Adds a fault (after ``Fault/validate()``); it acts from the next command on.
    @discardableResult
    public func inject(_ fault: Fault) throws(FaultError) -> InjectedFault {
        try fault.validate()
        let injected = InjectedFault(id: nextFaultID, fault: fault, hits: 0)
        nextFaultID += 1
        faults.append(injected)
        return injected
    }

    /// Removes the fault with this ID.
    public func removeFault(id: Int) throws(FaultError) {
        guard let index = faults.firstIndex(where: { $0.id == id }) else { throw .noSuchFault(id) }
        faults.remove(at: index)
    }

    /// Removes every fault; returns how many there were. The log is kept.
    @discardableResult
    public func clearFaults() -> Int {
        defer { faults.removeAll() }
        return faults.count
    }

    /// Empties the fault log.
    public func clearLog() {
        log.removeAll()
    }

    /// The first fault matching `command` whose effect `pick` accepts acts (``acted(at:in:detail:)``).
    /// Returns what `pick` took from the effect.
    private func fire<Value>(in command: CardCommand, _ pick: (FaultEffect) -> Value?,
                             detail: (Value) -> String) -> Value? {
        guard !faults.isEmpty else { return nil }
        for index in faults.indices where faults[index].fault.scope.matches(command) {
            guard let value = pick(faults[index].fault.effect) else { continue }
            acted(at: index, in: command, detail: detail(value))
            return value
        }
        return nil
    }

    /// The fault at `index` acted in `command`: counted, removed if one-shot, logged.
    private func acted(at index: Int, in command: CardCommand, detail: String) {
        faults[index].hits += 1
        let fired = faults[index]
        if fired.fault.once { faults.remove(at: index) }
        let entry = FaultLogEntry(faultID: fired.id, command: command, effect: fired.fault.effect,
                                  detail: detail, removed: fired.fault.once)
        if log.count >= Self.maximumLogLength { log.removeFirst(log.count - Self.maximumLogLength + 1) }
        log.append(entry)
        onFaultInjected?(entry)
    }

    // MARK: - Inside a command

    /// The faults that act inside a command, as the card model takes them in its environment.
    public var armed: ArmedFaults {
        // Most cards run with no fault at all: no array to build, per command.
        guard !faults.isEmpty else { return ArmedFaults() }
        return ArmedFaults(faults.compactMap { injected in
            let fault = injected.fault
            // A fault on one exact APDU answers before the card reads it (answerInstead(ofAPDU:)).
            if case .command(.apdu) = fault.scope { return nil }
            return fault.effect.armedPoint.map {
                ArmedFaults.Fault(id: injected.id, command: fault.scope.command, point: $0, once: fault.once)
            }
        })
    }

    /// The card model's acts of ``armed`` faults (``CardAction``), in order: each is counted,
    /// retired if one-shot, logged and reported, as if the fault had acted here.
    public func record(_ acts: [FaultAct]) {
        guard !acts.isEmpty else { return }
        for act in acts {
            // A fault removed before its act is recorded is gone from the log too.
            guard let index = faults.firstIndex(where: { $0.id == act.faultID }) else { continue }
            acted(at: index, in: act.command, detail: Self.detail(of: act.kind))
        }
    }

    /// An act in words, as the log says it.
    private static func detail(of kind: FaultAct.Kind) -> String {
        switch kind {
        case .answeredStatusWord(let word): "answered status word \(word) instead of running"
        case .answeredStatus(let byte): "answered \(FaultEffect.statusName(byte)) instead of running"
        case .declinedPresence: "the user declined the test of user presence"
        case .changedFlags(let from, let to): "authenticator data flags \(flagText(from)) sent as \(flagText(to))"
        case .bogusSignature: "signature replaced by a bogus one (a bit of s flipped)"
        }
    }

    private static func flagText(_ flags: AuthenticatorData.Flags) -> String {
        "UP=\(flags.contains(.userPresent) ? 1 : 0) UV=\(flags.contains(.userVerified) ? 1 : 0)"
    }

    // MARK: - The storage boundary

    /// Whether the write of `command`'s changes is torn (a fail-next-write fault).
    public func failsWrite(in command: CardCommand) -> Bool {
        fire(in: command, { $0 == .failNextWrite ? true : nil },
             detail: { _ in "the write to the card's memory was torn; the card keeps its previous state" }) ?? false
    }

    /// After `command` ran: how long the card leaves the field instead of answering, or nil.
    public func leavesField(after command: CardCommand) -> Duration? {
        fire(in: command, { effect -> Duration? in
            if case .leaveField(let away) = effect { return away }
            return nil
        }, detail: { "the card left the field after running it; the response is lost (back after \($0))" })
    }

    /// Before the card front reads `apdu`: the answer of a fault scoped to exactly this APDU
    /// (``FaultScope/apdu(_:)``), or nil. The front never sees an APDU a fault answers.
    public func answerInstead(ofAPDU apdu: [UInt8]) -> [UInt8]? {
        guard faults.contains(where: { if case .command(.apdu) = $0.fault.scope { true } else { false } }) else { return nil }
        return fire(in: .apdu(apdu), { effect -> (answer: [UInt8], text: String)? in
            switch effect {
            case .statusWord(let word): (word.bytes, "status word \(word)")
            case .ctapError(let byte): ([byte] + StatusWord.success.bytes, FaultEffect.statusName(byte))
            default: nil
            }
        }, detail: { "answered \($0.text) instead of letting the card read it" })?.answer
    }

    /// After `command` ran: how much later its answer goes (a delay fault), or nil.
    public func delay(after command: CardCommand) -> Duration? {
        fire(in: command, { effect -> Duration? in
            if case .delay(let extra) = effect { return extra }
            return nil
        }, detail: { "answered \($0) later" })
    }
}
