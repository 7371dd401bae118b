import FIDOWire

/// What the world outside the card decides while one command runs: the time, the person holding
/// the card, and — on a test double — the faults armed in it (``ArmedFaults``). The
/// authenticator never reaches out for any of it; it is handed over with every command, and what
/// the faults did comes back in the command's outcome.
public struct CommandEnvironment {
    /// Now.
    public var now: CardInstant
    /// Asked when the command needs evidence of user presence; a card in the NFC field counts as
    /// present, so a card's default answers yes.
    public var userPresence: () -> Bool
    /// The faults a test double armed; none by default.
    public var faults: ArmedFaults

    public init(now: CardInstant, userPresence: @escaping () -> Bool = { true }, faults: ArmedFaults = ArmedFaults()) {
        self.now = now
        self.userPresence = userPresence
        self.faults = faults
    }
}
