/// One command while the authenticator runs it: what it is, what the world says meanwhile, and
/// what it has noted on the way — all of it in one value that exists only while the command runs
/// (``Authenticator`` holds it from the command's start to its outcome), so nothing of one command
/// can leak into the next.
struct RunningCommand {
    /// The command.
    let command: CardCommand
    /// The time, the person's answer and the armed faults (whose acts are noted in it).
    var environment: CommandEnvironment
    /// Why the command failed inside the card, when it answers CTAP1_ERR_OTHER for that.
    var internalFailure: String?
    /// A PIN check the command started: it goes on once the retry decrement is durable.
    var suspendedPINCheck: PINCheck?
    /// The signature counter value the command hands out, applied when it finishes.
    var counterInUse: UInt32?
    /// What the command stopped to ask the person (its presence was undecided).
    var presenceAsked: PresencePrompt?
}
