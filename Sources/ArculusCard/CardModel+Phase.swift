import CTAP2

extension CardModel {
    /// Where the card is in its life: one phase at a time, and only ``CardModel``'s transitions
    /// move it from one to the next.
    ///
    /// ```
    /// unpowered ── powerOn, or a command that reaches the authenticator (it powers up first) ──► idle
    /// idle ── a CTAP message sent with P1 80, timing on ──► working ── a poll finds it done ──► idle
    /// idle, working ── a command with changes ──► writing ── finishWrite ──► back where it was
    /// idle ── a command whose test of user presence is undecided ──► awaitingPresence
    /// awaitingPresence ── the answer, the deadline, or (polled) another command ──► idle
    /// any but writing ── powerOff ──► unpowered        any but writing ── leaveField ──► outOfField
    /// outOfField ── powerOn, or a request straight to the authenticator ──► idle   (APDUs: silence)
    /// ```
    /// Off (unpowered, outOfField) is the authenticator's record, not the model's: the phase of a
    /// card whose authenticator has no session is one of those two, whatever else was going on.
    ///
    /// Nothing but ``CardModel/finishWrite(succeeded:)`` can happen while writing: the answer may
    /// not leave, and the power may not change, before the changes are durable. Such an input is
    /// impossible for a caller that performs the actions it is given, so it is a precondition
    /// failure that names the phase.
    enum Phase: CustomStringConvertible {
        /// Off: the authenticator has no session (``Authenticator/isPowered``), as after
        /// ``CardModel/powerOff(at:)``. APDUs still
        /// reach the front (power-off cleared it), and the first command that reaches the
        /// authenticator powers the card up at its time: it answers as a card just tapped.
        case unpowered
        /// Powered, nothing under way.
        case idle
        /// Powered and working on the CTAP request behind the last `9100` answer until `until`
        /// (simulated time, ``TimingProfile``). The front holds the request: any APDU but a poll
        /// drops it there, which ends the work; requests straight to the authenticator leave it
        /// going on.
        case working(until: CardInstant)
        /// A command's changes are being made durable (``CardAction/persist(_:for:faultActs:)``).
        /// Boxed (`indirect`), as the wait below: the phase is read for every input, and
        /// inline these made every phase as large as a command's whole outcome.
        indirect case writing(PendingWrite)
        /// A command stopped at its test of user presence and waits for the person's answer
        /// (``CardAction/awaitPresence(_:until:mayDefer:)``): the driver waits for it, or the host
        /// polls and is answered `9100` UPNEEDED meanwhile.
        indirect case awaitingPresence(PresenceWait)
        /// The card left the field on its own (an injected fault): no answer until powered again.
        case outOfField

        /// Whether the card works on, or waits for the person about, a request the front holds
        /// behind `9100` for the host's polls.
        var isOnDeferredRequest: Bool {
            switch self {
            case .working: true
            case .awaitingPresence(let wait): wait.deferred
            default: false
            }
        }

        var description: String {
            switch self {
            case .unpowered: "unpowered"
            case .idle: "idle"
            case .working(let until): "working until \(until)"
            case .writing(let pending): "writing the changes of \(pending.command)"
            case .awaitingPresence(let wait): "waiting for the person's answer to \(wait.prompt.command)"
            case .outOfField: "out of the field"
            }
        }
    }

    /// A command whose changes are being made durable, and what the card does once they are.
    struct PendingWrite {
        enum Kind {
            /// A CTAP request from the front.
            case ctap(CommandOutcome)
            /// A CTAP request straight to the authenticator.
            case direct(CommandOutcome)
            /// A U2F command from the front.
            case u2f(U2FCommandOutcome)
            /// A U2F command straight to the authenticator.
            case directU2F(U2FCommandOutcome)

            /// Whether the command came straight to the authenticator, bypassing the front.
            var isDirect: Bool {
                switch self {
                case .direct, .directU2F: true
                case .ctap, .u2f: false
                }
            }
        }
        let command: CardCommand
        let kind: Kind
        /// The card's simulated work time for the command.
        let work: Duration
        /// The simulated work going on when the command ran (``Phase/working(until:)``), which
        /// goes on after the write.
        let workingUntil: CardInstant?

        /// The phase after the write.
        var phaseAfter: Phase { workingUntil.map { .working(until: $0) } ?? .idle }

        /// The same command, going on with another write.
        func next(_ kind: Kind) -> PendingWrite {
            PendingWrite(command: command, kind: kind, work: work, workingUntil: workingUntil)
        }
    }

    /// A command that stopped at its test of user presence (``Phase/awaitingPresence(_:)``).
    struct PresenceWait {
        /// The command as it came, to run again once the person answered.
        enum Request {
            /// A CTAP request from the front; `polled`: the host polls NFCCTAP_GETRESPONSE for it
            /// (P1 `80`, or a poll); `paid`: its time was spent answering `9100`.
            case front([UInt8], polled: Bool, paid: Bool)
            /// A CTAP request straight to the authenticator.
            case direct([UInt8])
            /// A U2F command from the front.
            case frontU2F(CardFront.Command)
            /// A U2F command straight to the authenticator.
            case directU2F(CardFront.Command)
        }
        let request: Request
        let prompt: PresencePrompt
        /// When the command stopped to ask.
        let since: CardInstant
        /// When the card gives up waiting (``CardModel/presenceTimeout``).
        let deadline: CardInstant
        /// The APDU's time, counted for each `9100` answer.
        let work: Duration
        /// The person's answer, once given.
        var answer: Bool?
        /// Whether the card answered `9100` UPNEEDED and waits for the host's polls.
        var deferred = false

        /// Whether the host can be answered `9100` UPNEEDED and poll (P1 `80`).
        var mayDefer: Bool {
            if case .front(_, let polled, _) = request { polled } else { false }
        }
    }
}

/// What a driver can see of a command waiting for the person (``CardModel/presenceWait``).
public struct PresenceWaitState: Sendable, Equatable {
    /// What the command asks.
    public let prompt: PresencePrompt
    /// When it stopped to ask, and when the card gives up.
    public let since: CardInstant
    public let deadline: CardInstant
    /// The person's answer, once given (the command runs with it next).
    public let answer: Bool?
    /// Whether the card answers the host's polls `9100` UPNEEDED meanwhile.
    public let isDeferred: Bool
}
