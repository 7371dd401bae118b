/// What one command did: its answer, and the changes to the card's memory that must be durable
/// before that answer may leave the card. The authenticator never writes its memory itself:
/// the caller makes ``changes`` durable, then calls ``Authenticator/finish(_:durable:)``, which
/// applies them (or, if the write failed, puts the volatile state back and answers
/// CTAP1_ERR_OTHER, so the card's state is as before the command).
public struct CommandOutcome {
    /// The answer if the changes are made durable (status byte + CBOR for CTAP2; data for U2F).
    public var response: [UInt8]
    /// The changes to make durable first, in order (empty: nothing to write).
    public var changes: [CardMutation]
    /// Why the command answered CTAP1_ERR_OTHER, when something inside the card failed.
    public var internalFailure: String?
    /// False when an injected fault answered instead of running the command.
    public var ran = true
    /// What the environment's armed faults did in the command, in order (``ArmedFaults``).
    public var faultActs: [FaultAct] = []
    /// The command stopped at its test of user presence, whose answer the environment left
    /// undecided: this is what it asks. Nothing else of it counts (no answer, no changes, no
    /// fault acts); run it again with the person's answer.
    public var awaitsPresence: PresencePrompt?
    /// The signature counter value the command handed out (within what is durable, or within
    /// ``changes``), recorded when it finishes.
    var signatureCounter: UInt32?
    /// The volatile state before the command, restored if the write fails.
    var rollback: Rollback?
    /// A command that goes on once ``changes`` are durable: a PIN check, whose retry decrement
    /// must be durable before the PIN is compared.
    var continuation: PINCheck?

    struct Rollback: Sendable {
        let session: AuthenticatorSession
        let random: CardRandom
    }
}

/// What ``Authenticator/finish(_:durable:)`` leaves the caller to do.
public enum FinishedCommand {
    /// Send this answer.
    case answer([UInt8])
    /// The command went on and has more changes to make durable first: write these, then
    /// ``Authenticator/finish(_:durable:)`` them too.
    case persist(CommandOutcome)
}
