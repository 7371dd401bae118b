import CTAP2
import ISO7816
import FIDOWire
import POSIXSupport

/// The test-double controls of one emulated card: injected faults and their log, simulated
/// timing, and whether the card is in the field. Every ``VirtualCard`` has one
/// (``VirtualCard/control``); the card's state controls (PIN, counter, credentials) are methods
/// of the card itself.
///
/// It sits at the three places a fault can act: around each APDU (``VirtualCard/transmit(_:)``:
/// per-APDU time, leaving the field), before each whole command in the card front (status-word
/// faults, `9100` while a simulated operation is under way) and inside the authenticator (it is
/// the authenticator's ``AuthenticatorFaultInjector``: CTAP errors, presence, flags,
/// signatures, writes). Each time a fault acts it is appended to ``log`` and passed to
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
    /// How long operations take (``TimingProfile/off`` by default).
    public var timing: TimingProfile = .off
    /// False from the moment the card left the field (a ``FaultEffect/leaveField(away:)`` fault)
    /// until the host powers it again; meanwhile ``VirtualCard/transmit(_:)`` answers nothing.
    public private(set) var isInField = true
    /// Called when the card leaves the field, with how long it stays away: a reader bridge takes
    /// the card off the reader for that long (`arculus-card serve` does).
    public var onLeaveField: ((Duration) -> Void)?

    /// How many log entries are kept.
    public static let maximumLogLength = 1000

    private var nextFaultID = 1
    /// The command running in the authenticator, between its start and end reports.
    private var currentCommand: CardCommand?
    /// Whether a command APDU is being handled (leaving the field needs an APDU to vanish from).
    private var transmitting = false
    /// Set by a leave-field fault during the current APDU: how long the card stays away.
    private var leaving: Duration?
    /// When the simulated operation behind the pending `9100` ends.
    private var busyUntil: ContinuousClock.Instant?
    /// A CTAP request whose time was already spent answering `9100` polls.
    private var paidRequest: [UInt8]?
    private let clock = ContinuousClock()

    /// Controls with no faults, timing off, the card in the field.
    public init() {}

    /// Wires the controls into a card's front and authenticator.
    func attach(front: CardFront, authenticator: Authenticator) {
        front.interceptCommand = { [weak self] instruction, _, data in
            self?.intercept(instruction, data: data)
        }
        front.isStillProcessing = { [weak self] request, arriving in
            self?.isStillProcessing(request, arriving: arriving) ?? false
        }
        authenticator.faultInjector = self
    }

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

    /// The first fault matching `command` whose effect `pick` accepts acts: counted, removed if
    /// one-shot, logged. Returns what `pick` took from the effect.
    private func fire<Value>(in command: CardCommand, _ pick: (FaultEffect) -> Value?,
                             detail: (Value) -> String) -> Value? {
        for index in faults.indices where faults[index].fault.scope.matches(command) {
            guard let value = pick(faults[index].fault.effect) else { continue }
            faults[index].hits += 1
            let fired = faults[index]
            if fired.fault.once { faults.remove(at: index) }
            let entry = FaultLogEntry(faultID: fired.id, command: command, effect: fired.fault.effect,
                                      detail: detail(value), removed: fired.fault.once)
            if log.count >= Self.maximumLogLength { log.removeFirst(log.count - Self.maximumLogLength + 1) }
            log.append(entry)
            onFaultInjected?(entry)
            return value
        }
        return nil
    }

    /// A leave-field fault for `command` acts: the APDU's response will be dropped.
    private func noteLeaveField(in command: CardCommand) {
        let away = fire(in: command, { effect -> Duration? in
            if case .leaveField(let away) = effect { return away }
            return nil
        }, detail: { "the card left the field after running it; the response is lost (back after \($0))" })
        if let away { leaving = away }
    }

    // MARK: - APDUs and the card front

    /// One APDU through the front, with the per-APDU time and the field faults.
    func transmit(_ apdu: [UInt8], through front: CardFront) -> [UInt8] {
        guard isInField else { return [] }
        if !timing.isOff { Self.pause(timing.apdu) }
        transmitting = true
        leaving = nil
        let response = front.transmit(apdu)
        transmitting = false
        guard let away = leaving else { return response }
        leaving = nil
        isInField = false
        front.powerOff()
        onLeaveField?(away)
        return []
    }

    /// The card was powered on or off by its host: it is (back) in the field.
    func powerChanged() {
        isInField = true
        busyUntil = nil
        paidRequest = nil
    }

    /// Before a whole command runs in the front: status-word faults, and leaving on SELECT.
    private func intercept(_ instruction: FIDOInstruction, data: [UInt8]) -> ResponseAPDU? {
        guard let command = Self.command(instruction, data: data) else { return nil }
        let word = fire(in: command, { effect -> StatusWord? in
            if case .statusWord(let word) = effect { return word }
            return nil
        }, detail: { "answered status word \($0) instead of running" })
        if let word { return ResponseAPDU(statusWord: word) }
        if command == .select { noteLeaveField(in: command) }
        return nil
    }

    /// The command a whole APDU carries, or nil for continuation pieces and U2F VERSION.
    static func command(_ instruction: FIDOInstruction, data: [UInt8]) -> CardCommand? {
        switch instruction {
        case .select: .select
        case .nfcctapMessage: data.first.map { .ctap($0) }
        case .u2fRegister: .u2fRegister
        case .u2fAuthenticate: .u2fAuthenticate
        case .u2fVersion, .getResponse, .nfcctapGetResponse: nil
        }
    }

    /// Timing: `9100` until the simulated operation for `request` is over.
    private func isStillProcessing(_ request: [UInt8], arriving: Bool) -> Bool {
        guard !timing.isOff, let byte = request.first else { return false }
        if arriving {
            paidRequest = nil
            let duration = timing.duration(of: .ctap(byte), request: request[...])
            busyUntil = duration > .zero ? clock.now.advanced(by: duration) : nil
            return busyUntil != nil
        }
        guard let until = busyUntil else { return false }
        if clock.now < until { return true }
        busyUntil = nil
        paidRequest = request
        return false
    }

    /// Sleeps the calling thread for `duration`: the card at work.
    static func pause(_ duration: Duration) {
        POSIX.sleep(for: duration)
    }
}

extension CardControl: AuthenticatorFaultInjector {
    public func commandWillStart(_ command: CardCommand, request: ArraySlice<UInt8>) -> UInt8? {
        currentCommand = command
        if command.isCTAP {
            let status = fire(in: command, { effect -> UInt8? in
                if case .ctapError(let byte) = effect { return byte }
                return nil
            }, detail: { "answered \(FaultEffect.statusName($0)) instead of running" })
            if let status { return status }
        }
        if transmitting { noteLeaveField(in: command) }
        guard !timing.isOff else { return nil }
        if let paid = paidRequest, paid[...] == request {
            paidRequest = nil
        } else {
            Self.pause(timing.duration(of: command, request: request))
        }
        return nil
    }

    public func commandDidEnd() {
        currentCommand = nil
    }

    public func declinesUserPresence() -> Bool {
        guard let command = currentCommand else { return false }
        return fire(in: command, { $0 == .declinePresence ? true : nil },
                    detail: { _ in "the user declined the test of user presence" }) ?? false
    }

    public func authenticatorDataFlags(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags {
        guard let command = currentCommand else { return flags }
        var changed = flags
        let fired = fire(in: command, { effect -> (Bool?, Bool?)? in
            if case .flags(let up, let uv) = effect { return (up, uv) }
            return nil
        }, detail: { up, uv in
            if let up { if up { changed.insert(.userPresent) } else { changed.remove(.userPresent) } }
            if let uv { if uv { changed.insert(.userVerified) } else { changed.remove(.userVerified) } }
            return "authenticator data flags \(Self.flagText(flags)) sent as \(Self.flagText(changed))"
        })
        return fired == nil ? flags : changed
    }

    public func signature(_ signature: [UInt8]) -> [UInt8] {
        guard let command = currentCommand, !signature.isEmpty else { return signature }
        let fired = fire(in: command, { $0 == .bogusSignature ? true : nil },
                         detail: { _ in "signature replaced by a bogus one (a bit of s flipped)" })
        guard fired != nil else { return signature }
        var bogus = signature
        bogus[bogus.count - 1] ^= 0x01
        return bogus
    }

    public func failsWrite(_ mutations: [CardMutation]) -> Bool {
        guard let command = currentCommand else { return false }
        return fire(in: command, { $0 == .failNextWrite ? true : nil },
                    detail: { _ in "the write to the card's memory was torn; the card keeps its previous state" }) ?? false
    }

    private static func flagText(_ flags: AuthenticatorData.Flags) -> String {
        "UP=\(flags.contains(.userPresent) ? 1 : 0) UV=\(flags.contains(.userVerified) ? 1 : 0)"
    }
}
