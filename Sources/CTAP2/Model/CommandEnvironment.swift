import FIDOWire

/// What the world outside the card decides while one command runs: the time, and the person
/// holding the card. A test double also passes its faults in here (see ``CardFaultHooks``).
/// The authenticator never reaches out for any of it; it is handed over with every command.
public struct CommandEnvironment {
    /// Now.
    public var now: CardInstant
    /// Asked when the command needs evidence of user presence; a card in the NFC field counts as
    /// present, so a card's default answers yes.
    public var userPresence: () -> Bool
    /// Faults of a test double, or nil.
    public var faults: (any CardFaultHooks)?

    public init(now: CardInstant, userPresence: @escaping () -> Bool = { true }, faults: (any CardFaultHooks)? = nil) {
        self.now = now
        self.userPresence = userPresence
        self.faults = faults
    }
}

/// The places inside a command where a test double can change what the card does. The card model
/// consults them at exactly these points (the write and leaving the field are the caller's, at
/// the storage boundary); without hooks none of this happens.
public protocol CardFaultHooks: AnyObject {
    /// Before the front hands `command` to the card: a status word to answer instead, or nil.
    func statusWordInstead(of command: CardCommand) -> StatusWord?
    /// Before CTAP2 command `command` runs: a CTAP status byte to answer instead, or nil.
    func statusInstead(of command: CardCommand) -> UInt8?
    /// Before the card tests user presence in `command`: true means the user declines.
    func declinesUserPresence(in command: CardCommand) -> Bool
    /// The flags about to go into authenticator data (for U2F, only the user-present bit
    /// counts); returns the flags to use. The card signs what it sends.
    func authenticatorDataFlags(_ flags: AuthenticatorData.Flags, in command: CardCommand) -> AuthenticatorData.Flags
    /// A DER ECDSA signature the card just made; returns the one to send.
    func signature(_ signature: [UInt8], in command: CardCommand) -> [UInt8]
}
