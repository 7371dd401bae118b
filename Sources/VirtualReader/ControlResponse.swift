import ArculusCard

/// What a ``ControlRequest`` answers, before it is written as the members of an `ok` answer
/// (``members``; the table in ``ControlRequest`` names them).
public enum ControlResponse: Sendable {
    /// `status`.
    case status(Status)
    /// `details`.
    case details(Details)
    /// `tap`: the delay the card stays away, in seconds.
    case tapped(delay: Double)
    /// `remove`, `insert`, `fault.remove`, `credentials.remove`: no members.
    case done
    /// `fault.add`: the fault as the card holds it.
    case fault(InjectedFault)
    /// `fault.list`.
    case faults([InjectedFault], log: [FaultLogEntry])
    /// `fault.clear`: how many were removed.
    case faultsCleared(Int)
    /// `credentials.list`.
    case credentials([CredentialListing])
    /// `credentials.add`.
    case credential(CredentialListing)
    /// `pin`.
    case pin(PINStatus)
    /// `counter`.
    case counter(UInt32)
    /// `timing`.
    case timing(TimingProfile)
    /// `presence`, `presence.answer`.
    case presence(PresenceStatus)

    /// How the person answers, and the prompt waiting for an answer.
    public struct PresenceStatus: Equatable, Sendable {
        public var mode: PresenceMode
        /// The prompt waiting in ``PresenceMode/ask``, if one is.
        public var pending: PendingPresence?

        public init(card: VirtualCard) {
            mode = card.presenceMode
            pending = card.pendingPresence
        }
    }

    /// The card in brief.
    public struct Status: Sendable {
        public var profile: String
        /// Whether the card is in a reader's field: false after an injected leave-field until
        /// it is powered again, and while it is held off its reader.
        public var inField: Bool
        /// Whether the card is on its reader; nil for a card on no reader.
        public var onReader: Bool?
        public var timing: String
        public var faults: Int
        public var credentials: Int
        public var counter: UInt32
        public var pin: PINStatus
        public var presence: PresenceStatus

        /// The state of `card`, on the reader behind `bridge` if any.
        public init(card: VirtualCard, bridge: VPCDBridge?) {
            profile = card.profile.name
            onReader = bridge.map { !$0.isHeldOffReader }
            // A card taken off its reader is out of its field too, whatever it last saw.
            inField = card.isInField && onReader != false
            timing = card.timing.name
            faults = card.control.faults.count
            credentials = card.credentials.count
            counter = card.pinState.signatureCounter
            pin = PINStatus(card: card)
            presence = PresenceStatus(card: card)
        }
    }

    /// The PIN as a test sees it.
    public struct PINStatus: Equatable, Sendable {
        public var isSet: Bool
        /// Attempts left before the PIN blocks (8 when none failed).
        public var retries: Int
        /// The PIN's length in code points (0 without a PIN).
        public var length: Int
        /// The profile's minimum PIN length.
        public var minLength: Int
        /// No attempts left: only a reset helps.
        public var blocked: Bool
        /// Three wrong PINs since the card was powered: PIN use waits for a power cycle.
        public var blockedUntilPowerCycle: Bool

        /// The PIN state of `card`.
        public init(card: VirtualCard) {
            let state = card.pinState
            isSet = state.isSet
            retries = state.retries
            length = card.authenticator.pinLength
            minLength = card.profile.minPINLength
            blocked = state.isSet && state.retries == 0
            blockedUntilPowerCycle = card.authenticator.isPINAuthBlocked
        }
    }
}
