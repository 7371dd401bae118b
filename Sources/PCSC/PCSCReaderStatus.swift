internal import CPCSCLite

/// What a reader holds, as `SCardGetStatusChange` reports it (see ``PCSCContext/status(ofReaders:)``).
public struct PCSCReaderStatus: Equatable, Sendable {
    /// The reader's name.
    public let reader: String
    /// The raw `dwEventState` bits (`SCARD_STATE_…`).
    public let eventState: UInt32
    /// The card's ATR; empty when there is no card.
    public let atr: [UInt8]

    init(reader: String, eventState: UInt32, atr: [UInt8]) {
        self.reader = reader
        self.eventState = eventState
        self.atr = atr
    }

    /// A card is in the reader (`SCARD_STATE_PRESENT`).
    public var isCardPresent: Bool { has(SCARD_STATE_PRESENT) }
    /// The reader is empty (`SCARD_STATE_EMPTY`).
    public var isEmpty: Bool { has(SCARD_STATE_EMPTY) }
    /// pcscd does not know the reader (`SCARD_STATE_UNKNOWN`).
    public var isUnknown: Bool { has(SCARD_STATE_UNKNOWN) }
    /// The reader's state cannot be read (`SCARD_STATE_UNAVAILABLE`).
    public var isUnavailable: Bool { has(SCARD_STATE_UNAVAILABLE) }
    /// An application is connected to the card (`SCARD_STATE_INUSE`).
    public var isInUse: Bool { has(SCARD_STATE_INUSE) }
    /// An application holds the card exclusively (`SCARD_STATE_EXCLUSIVE`).
    public var isExclusive: Bool { has(SCARD_STATE_EXCLUSIVE) }
    /// The card does not answer (`SCARD_STATE_MUTE`).
    public var isMute: Bool { has(SCARD_STATE_MUTE) }

    private func has(_ flag: Int32) -> Bool {
        eventState & UInt32(flag) != 0
    }
}
