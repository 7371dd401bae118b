import CTAP2

extension CardModel {
    /// Where the card is in its life: one phase at a time, and only ``CardModel``'s transitions
    /// move it from one to the next.
    ///
    /// ```
    /// unpowered ── powerOn, or a command that reaches the authenticator (it powers up first) ──► idle
    /// idle ── a CTAP message sent with P1 80, timing on ──► working ── a poll finds it done ──► idle
    /// idle, working ── a command with changes ──► writing ── finishWrite ──► back where it was
    /// any but writing ── powerOff ──► unpowered        any but writing ── leaveField ──► outOfField
    /// outOfField ── powerOn, or a request straight to the authenticator ──► idle   (APDUs: silence)
    /// ```
    /// Nothing but ``CardModel/finishWrite(succeeded:)`` can happen while writing: the answer may
    /// not leave, and the power may not change, before the changes are durable. Such an input is
    /// impossible for a caller that performs the actions it is given, so it is a precondition
    /// failure that names the phase.
    enum Phase: CustomStringConvertible {
        /// Off: after ``CardModel/powerOff(at:)``, the authenticator has no session. APDUs still
        /// reach the front (power-off cleared it), and the first command that reaches the
        /// authenticator powers the card up at its time: it answers as a card just tapped.
        case unpowered
        /// Powered, nothing under way.
        case idle
        /// Powered and working on the CTAP request behind the last `9100` answer until `until`
        /// (simulated time, ``TimingProfile``). APDUs the front answers by itself and requests
        /// straight to the authenticator leave the work going on.
        case working(until: CardInstant)
        /// A command's changes are being made durable (``CardAction/persist(_:for:faultActs:)``).
        case writing(PendingWrite)
        /// The card left the field on its own (an injected fault): no answer until powered again.
        case outOfField

        var description: String {
            switch self {
            case .unpowered: "unpowered"
            case .idle: "idle"
            case .working(let until): "working until \(until)"
            case .writing(let pending): "writing the changes of \(pending.command)"
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
}
