import FIDOWire

/// The faults a test double has armed, as the ``CommandEnvironment`` carries them into the card:
/// each one acts at a single point inside a command — instead of running it, at the test of user
/// presence, on the authenticator data's flags, on a signature.
///
/// A value, filled by the boundary that holds the test double's faults (ArculusCard's
/// `CardControl`). The card model and the authenticator consult it at those points and never call
/// out: each act is noted here (``acts``) and travels back in the command's outcome, and the
/// boundary counts, logs and retires the faults from it. Within one command a one-shot fault acts
/// once, so that a later point sees the next fault armed for it, as it will after the boundary
/// retires it. Faults that act at the boundary itself (a torn write, leaving the field, a delay,
/// an answer to one exact APDU) are never armed here.
public struct ArmedFaults: Sendable {
    /// One armed fault.
    public struct Fault: Sendable, Equatable {
        /// The boundary's ID for it, named again in its ``FaultAct``s.
        public var id: Int
        /// The command it is scoped to, or nil for every command (``CardCommand/isInScope(_:)``).
        public var command: CardCommand?
        /// Where it acts and what it does there.
        public var point: Point
        /// Whether it acts at most once.
        public var once: Bool

        public init(id: Int, command: CardCommand?, point: Point, once: Bool) {
            self.id = id
            self.command = command
            self.point = point
            self.once = once
        }
    }

    /// The points inside a command where a fault can act, with what it does there.
    public enum Point: Sendable, Equatable {
        /// Before the card front hands over the command: this status word answers instead.
        case statusWord(StatusWord)
        /// Before a CTAP2 command runs: this status byte answers instead.
        case ctapStatus(UInt8)
        /// Where the command tests user presence: the person declines.
        case declinePresence
        /// Where the command writes authenticator data: these UP/UV values (nil keeps a flag).
        case flags(userPresent: Bool?, userVerified: Bool?)
        /// Where the command signs: the signature's last bit is flipped.
        case bogusSignature
    }

    /// The faults still armed, in the order the test double injected them (the first that
    /// applies acts).
    public private(set) var faults: [Fault]
    /// Every act since the last ``takeActs()``, in order.
    public private(set) var acts: [FaultAct] = []

    /// `faults` armed, nothing acted yet.
    public init(_ faults: [Fault] = []) {
        self.faults = faults
    }

    /// Whether no fault is armed (then no point acts and nothing needs copying).
    public var isEmpty: Bool { faults.isEmpty }

    /// The acts so far; they are forgotten here.
    public mutating func takeActs() -> [FaultAct] {
        defer { acts = [] }
        return acts
    }

    // MARK: - The points

    /// Before the card front hands `command` to the card: a status word to answer instead.
    public mutating func statusWord(insteadOf command: CardCommand) -> StatusWord? {
        act(in: command) { point -> (StatusWord, FaultAct.Kind)? in
            if case .statusWord(let word) = point { (word, .answeredStatusWord(word)) } else { nil }
        }
    }

    /// Before CTAP2 command `command` runs: a status byte to answer instead.
    mutating func ctapStatus(insteadOf command: CardCommand) -> UInt8? {
        act(in: command) { point -> (UInt8, FaultAct.Kind)? in
            if case .ctapStatus(let byte) = point { (byte, .answeredStatus(byte)) } else { nil }
        }
    }

    /// Where `command` tests user presence: whether the person declines.
    mutating func declinesPresence(in command: CardCommand) -> Bool {
        act(in: command) { point -> (Bool, FaultAct.Kind)? in
            point == .declinePresence ? (true, .declinedPresence) : nil
        } ?? false
    }

    /// The flags `command` is about to put into authenticator data, as a fault changes them.
    mutating func flags(_ flags: AuthenticatorData.Flags, in command: CardCommand) -> AuthenticatorData.Flags {
        act(in: command) { point -> (AuthenticatorData.Flags, FaultAct.Kind)? in
            guard case .flags(let up, let uv) = point else { return nil }
            var changed = flags
            if let up { if up { changed.insert(.userPresent) } else { changed.remove(.userPresent) } }
            if let uv { if uv { changed.insert(.userVerified) } else { changed.remove(.userVerified) } }
            return (changed, .changedFlags(from: flags, to: changed))
        } ?? flags
    }

    /// A DER signature `command` just made, as a fault changes it (an empty one is left alone).
    mutating func signature(_ signature: [UInt8], in command: CardCommand) -> [UInt8] {
        guard !signature.isEmpty else { return signature }
        return act(in: command) { point -> ([UInt8], FaultAct.Kind)? in
            guard point == .bogusSignature else { return nil }
            var bogus = signature
            bogus[bogus.count - 1] ^= 0x01
            return (bogus, .bogusSignature)
        } ?? signature
    }

    /// The first armed fault for `command` that `effect` accepts acts: noted, and disarmed if it
    /// acts once. What `effect` made of its point.
    private mutating func act<Value>(in command: CardCommand,
                                     _ effect: (Point) -> (Value, FaultAct.Kind)?) -> Value? {
        guard !isEmpty else { return nil }
        for index in faults.indices where command.isInScope(faults[index].command) {
            guard let (value, kind) = effect(faults[index].point) else { continue }
            acts.append(FaultAct(faultID: faults[index].id, command: command, kind: kind))
            if faults[index].once { faults.remove(at: index) }
            return value
        }
        return nil
    }
}
