internal import CPCSCLite

/// A connection to the PC/SC resource manager (pcscd): lists readers, watches them and connects
/// to cards (`SCardEstablishContext`; released in `deinit` with `SCardReleaseContext`).
///
/// ```swift
/// let context = try PCSCContext()
/// for reader in try context.readers() { print(reader) }
/// let card = try context.connect(reader: "Virtual PCD 00 01")
/// let answer = try card.transmit([0x00, 0xA4, 0x04, 0x00, 0x08,
///                                 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00])
/// ```
/// Not thread-safe (pcsc-lite's contexts are not): use a context and its cards from one thread
/// at a time. Cards keep their context alive.
public final class PCSCContext {
    /// The `SCARDCONTEXT`; valid until `deinit`.
    let handle: SCARDCONTEXT

    /// Establishes a context in the system scope.
    ///
    /// - Throws: ``PCSCError`` with ``PCSCError/Code/noService`` when pcscd is not running.
    public init() throws(PCSCError) {
        var context: SCARDCONTEXT = 0
        try PCSCError.check(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context), "SCardEstablishContext")
        handle = context
    }

    deinit {
        _ = SCardReleaseContext(handle)
    }

    /// The names of the readers pcscd knows, in its order. No reader is an empty array, not an
    /// error.
    public func readers() throws(PCSCError) -> [String] {
        // The list can grow between the size query and the read (a reader plugged in): retry.
        for _ in 0..<8 {
            var length: DWORD = 0
            let sizing = SCardListReaders(handle, nil, nil, &length)
            if PCSCError.Code(sizing) == .noReadersAvailable { return [] }
            try PCSCError.check(sizing, "SCardListReaders")
            var buffer = [CChar](repeating: 0, count: Int(length))
            let reading = SCardListReaders(handle, nil, &buffer, &length)
            switch PCSCError.Code(reading) {
            case .noReadersAvailable: return []
            case .insufficientBuffer: continue
            default: try PCSCError.check(reading, "SCardListReaders")
            }
            return Self.multiString(buffer.prefix(Int(length)))
        }
        throw PCSCError(function: "SCardListReaders", code: .insufficientBuffer)
    }

    /// Connects to the card in `reader` (`SCardConnect`, offering T=0 and T=1; the reader picks).
    ///
    /// - Throws: ``PCSCError``: ``PCSCError/Code/noSmartcard`` for an empty reader,
    ///   ``PCSCError/Code/unknownReader`` for a name pcscd does not know,
    ///   ``PCSCError/Code/sharingViolation`` when another application holds the card exclusively.
    public func connect(reader: String, shareMode: PCSCShareMode = .shared) throws(PCSCError) -> PCSCCard {
        var card: SCARDHANDLE = 0
        var active: DWORD = 0
        try PCSCError.check(
            SCardConnect(handle, reader, shareMode.dword, DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &active),
            "SCardConnect")
        return PCSCCard(context: self, handle: card, reader: reader, shareMode: shareMode, activeProtocol: active)
    }

    /// What each reader holds right now, without connecting (`SCardGetStatusChange` with a zero
    /// timeout).
    public func status(ofReaders readers: [String]) throws(PCSCError) -> [PCSCReaderStatus] {
        guard !readers.isEmpty else { return [] }
        var states = ReaderStates(readers)
        try states.wait(context: handle, timeout: 0)
        return states.statuses
    }

    /// Waits until `reader` holds a card, at most `timeout`.
    ///
    /// - Returns: `true` as soon as a card is present (at once when one already is), `false`
    ///   when `timeout` passed with the reader empty.
    /// - Throws: ``PCSCError``; ``PCSCError/Code/unknownReader`` when pcscd has no such reader.
    public func waitForCardPresent(reader: String, timeout: Duration) throws(PCSCError) -> Bool {
        var states = ReaderStates([reader])
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        try states.wait(context: handle, timeout: 0)
        while true {
            let status = states.statuses[0]
            if status.isUnknown { throw PCSCError(function: "SCardGetStatusChange", code: .unknownReader) }
            if status.isCardPresent { return true }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            states.acknowledgeEvents()
            do {
                try states.wait(context: handle, timeout: Self.milliseconds(remaining))
            } catch where error.code == .timeout {
                return false
            }
        }
    }

    /// Splits a PC/SC multi-string (names separated by NUL, ended by an empty name).
    static func multiString(_ characters: ArraySlice<CChar>) -> [String] {
        characters.split(separator: 0, omittingEmptySubsequences: true).map { name in
            String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// A timeout in whole milliseconds for PC/SC, at least 1 so that a positive wait waits.
    private static func milliseconds(_ duration: Duration) -> DWORD {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return DWORD(max(1, min(total, Int64(UInt32.max - 1))))
    }
}

/// The `SCARD_READERSTATE` array of one `SCardGetStatusChange` call. The reader names live in
/// one NUL-separated buffer that is pinned for exactly the duration of each call.
private struct ReaderStates {
    private let readers: [String]
    private var names: [CChar] = []
    private var offsets: [Int] = []
    private var states: [SCARD_READERSTATE]

    init(_ readers: [String]) {
        self.readers = readers
        for reader in readers {
            offsets.append(names.count)
            names += reader.utf8CString
        }
        states = readers.map { _ in
            var state = SCARD_READERSTATE()
            state.dwCurrentState = DWORD(SCARD_STATE_UNAWARE)
            return state
        }
    }

    /// One call; `timeout` in milliseconds (0: report the current state at once).
    mutating func wait(context: SCARDCONTEXT, timeout: DWORD) throws(PCSCError) {
        let count = DWORD(states.count)
        let offsets = self.offsets
        let result: LONG = names.withUnsafeBufferPointer { buffer in
            // Non-empty: every name contributes at least its NUL.
            guard let base = buffer.baseAddress else { preconditionFailure("no reader names") }
            for index in states.indices { states[index].szReader = base + offsets[index] }
            defer { for index in states.indices { states[index].szReader = nil } }
            return SCardGetStatusChange(context, timeout, &states, count)
        }
        try PCSCError.check(result, "SCardGetStatusChange")
    }

    /// The next call waits for a change from what the last one reported.
    mutating func acknowledgeEvents() {
        for index in states.indices {
            states[index].dwCurrentState = states[index].dwEventState & ~DWORD(SCARD_STATE_CHANGED)
        }
    }

    var statuses: [PCSCReaderStatus] {
        zip(readers, states).map { reader, state in
            let atrCount = min(Int(state.cbAtr), Int(MAX_ATR_SIZE))
            let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(atrCount)) }
            return PCSCReaderStatus(reader: reader, eventState: UInt32(truncatingIfNeeded: state.dwEventState), atr: atr)
        }
    }
}
