/// The person's answer to a test of user presence, as the driver hands it to the card with a
/// command (``CommandEnvironment/presence``): decided before the command, or not yet — then a
/// command that tests presence stops there and asks (``CommandOutcome/awaitsPresence``), and the
/// driver runs it again once it has the answer.
public enum UserPresence: Sendable, Equatable {
    /// The person is there and agrees: a card in the NFC field counts as present, so this is the
    /// default.
    case present
    /// The person declined.
    case declined
    /// Not known yet: the command suspends at its test of user presence.
    case undecided
}

/// What a command that stopped at its test of user presence asks the person about.
public struct PresencePrompt: Sendable, Equatable {
    /// The command that asks.
    public var command: CardCommand
    /// The relying party it is for, when the command names one (U2F names only a hash).
    public var rpId: String?

    public init(command: CardCommand, rpId: String?) {
        self.command = command
        self.rpId = rpId
    }
}
