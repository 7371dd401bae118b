internal import CPCSCLite

/// A connection to the card in one reader (an `SCARDHANDLE` from `SCardConnect`; disconnected
/// with `SCARD_LEAVE_CARD` in `deinit` unless ``disconnect(disposition:)`` was called).
///
/// Made by ``PCSCContext/connect(reader:shareMode:)``. Not thread-safe; keeps its context alive.
public final class PCSCCard {
    /// The reader the card is in.
    public let reader: String
    /// The share mode the connection was made with (kept on reconnect).
    public let shareMode: PCSCShareMode
    /// The protocol pcscd negotiated with the card (T=1 for contactless cards).
    public private(set) var activeProtocol: PCSCProtocol

    private let context: PCSCContext
    private let handle: SCARDHANDLE
    private var isConnected = true

    init(context: PCSCContext, handle: SCARDHANDLE, reader: String, shareMode: PCSCShareMode, activeProtocol: DWORD) {
        self.context = context
        self.handle = handle
        self.reader = reader
        self.shareMode = shareMode
        self.activeProtocol = PCSCProtocol(activeProtocol)
    }

    deinit {
        if isConnected { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
    }

    /// The card's ATR as the reader reports it (`SCardStatus`).
    public var atr: [UInt8] {
        get throws(PCSCError) {
            try checkConnected("SCardStatus")
            var name = [CChar](repeating: 0, count: 512)
            var nameLength = DWORD(name.count)
            var state: DWORD = 0
            var proto: DWORD = 0
            var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
            var atrLength = DWORD(atr.count)
            try PCSCError.check(SCardStatus(handle, &name, &nameLength, &state, &proto, &atr, &atrLength), "SCardStatus")
            return Array(atr.prefix(Int(atrLength)))
        }
    }

    /// The largest response `transmit` accepts: 65536 data bytes + SW1 SW2 of an extended APDU,
    /// with pcsc-lite's margin (`MAX_BUFFER_SIZE_EXTENDED`).
    public static let receiveBufferSize = Int(CPCSCLite_MAX_BUFFER_SIZE_EXTENDED)

    /// Sends one command APDU and returns the card's response (data + SW1 SW2), with the PCI of
    /// the active protocol (`SCardTransmit`). Short and extended APDUs alike; no chaining and
    /// no `61xx` handling (see ``ISO7816Exchange`` for that).
    public func transmit(_ apdu: [UInt8]) throws(PCSCError) -> [UInt8] {
        try checkConnected("SCardTransmit")
        var sendPCI: SCARD_IO_REQUEST
        switch activeProtocol {
        case .t0: sendPCI = g_rgSCardT0Pci
        case .t1: sendPCI = g_rgSCardT1Pci
        case .raw: sendPCI = g_rgSCardRawPci
        case .other:
            // pcscd refuses to transmit without T=0/T=1/RAW; let it say so in its own words.
            sendPCI = SCARD_IO_REQUEST(dwProtocol: activeProtocol.dword, cbPciLength: DWORD(MemoryLayout<SCARD_IO_REQUEST>.size))
        }
        // A receive PCI rather than NULL: pcsc-lite accepts NULL, but its spy library
        // (libpcscspy, pcsc-lite 1.9.9 in Debian 12) crashes on it, and this client should be
        // one that pcsc-spy can watch.
        var receivePCI = SCARD_IO_REQUEST(dwProtocol: sendPCI.dwProtocol, cbPciLength: DWORD(MemoryLayout<SCARD_IO_REQUEST>.size))
        var response = [UInt8](repeating: 0, count: Self.receiveBufferSize)
        var responseLength = DWORD(response.count)
        try PCSCError.check(
            SCardTransmit(handle, &sendPCI, apdu, DWORD(apdu.count), &receivePCI, &response, &responseLength),
            "SCardTransmit")
        response.removeSubrange(Int(responseLength)...)
        return response
    }

    /// Starts a transaction: until ``endTransaction(disposition:)`` no other application can
    /// send APDUs to the card (`SCardBeginTransaction`).
    public func beginTransaction() throws(PCSCError) {
        try checkConnected("SCardBeginTransaction")
        try PCSCError.check(SCardBeginTransaction(handle), "SCardBeginTransaction")
    }

    /// Ends the transaction (`SCardEndTransaction`).
    ///
    /// - Throws: ``PCSCError`` with ``PCSCError/Code/notTransacted`` when none was begun.
    public func endTransaction(disposition: PCSCDisposition = .leave) throws(PCSCError) {
        try checkConnected("SCardEndTransaction")
        try PCSCError.check(SCardEndTransaction(handle, disposition.dword), "SCardEndTransaction")
    }

    /// Re-establishes the connection, e.g. after ``PCSCError/Code/resetCard``; `.reset` warm-resets
    /// and `.unpower` power-cycles the card on the way (`SCardReconnect`).
    public func reconnect(disposition: PCSCDisposition = .leave) throws(PCSCError) {
        try checkConnected("SCardReconnect")
        var active: DWORD = 0
        try PCSCError.check(
            SCardReconnect(handle, shareMode.dword, DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), disposition.dword, &active),
            "SCardReconnect")
        activeProtocol = PCSCProtocol(active)
    }

    /// Ends the connection (`SCardDisconnect`); later calls throw ``PCSCError/Code/invalidHandle``.
    public func disconnect(disposition: PCSCDisposition = .leave) throws(PCSCError) {
        try checkConnected("SCardDisconnect")
        isConnected = false
        try PCSCError.check(SCardDisconnect(handle, disposition.dword), "SCardDisconnect")
    }

    private func checkConnected(_ function: String) throws(PCSCError) {
        guard isConnected else { throw PCSCError(function: function, code: .invalidHandle) }
    }
}

extension PCSCCard: APDUTransport {}
