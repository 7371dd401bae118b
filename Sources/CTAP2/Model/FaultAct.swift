import FIDOWire

/// One time an armed fault (``ArmedFaults``) acted inside a command: which fault, in which
/// command, and what it did. The card returns these with its answer; the boundary that armed the
/// fault counts it, logs it and retires a one-shot fault.
public struct FaultAct: Equatable, Sendable {
    /// What the fault did.
    public enum Kind: Equatable, Sendable {
        /// The command answered this status word without running.
        case answeredStatusWord(StatusWord)
        /// The CTAP2 command answered this status byte without running.
        case answeredStatus(UInt8)
        /// The person declined the test of user presence.
        case declinedPresence
        /// Authenticator data went out with `to` instead of `from` (and was signed so).
        case changedFlags(from: AuthenticatorData.Flags, to: AuthenticatorData.Flags)
        /// A signature went out with its last bit flipped.
        case bogusSignature
    }

    /// The armed fault's ID (``ArmedFaults/Fault/id``).
    public let faultID: Int
    /// The command it acted in.
    public let command: CardCommand
    /// What it did.
    public let kind: Kind

    public init(faultID: Int, command: CardCommand, kind: Kind) {
        self.faultID = faultID
        self.command = command
        self.kind = kind
    }
}
