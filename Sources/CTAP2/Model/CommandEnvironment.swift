import FIDOWire

/// What the world outside the card decides while one command runs: the time, the person holding
/// the card, and — on a test double — the faults armed in it (``ArmedFaults``). The
/// authenticator never reaches out for any of it; it is handed over with every command, and what
/// the faults did comes back in the command's outcome. The person's answer is a value too
/// (``UserPresence``): given before the command, or undecided, in which case a command that
/// tests presence stops there and its outcome asks (``CommandOutcome/awaitsPresence``).
public struct CommandEnvironment: Sendable {
    /// Now.
    public var now: CardInstant
    /// The person's answer to a test of user presence; a card in the NFC field counts as
    /// present, so the default is ``UserPresence/present``.
    public var presence: UserPresence
    /// The faults a test double armed; none by default.
    public var faults: ArmedFaults

    public init(now: CardInstant, presence: UserPresence = .present, faults: ArmedFaults = ArmedFaults()) {
        self.now = now
        self.presence = presence
        self.faults = faults
    }
}
