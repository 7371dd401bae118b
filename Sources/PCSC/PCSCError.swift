internal import CPCSCLite

/// A PC/SC call that failed: which function, the PC/SC return code with its name, and
/// pcsc-lite's own text for it (`pcsc_stringify_error`).
///
/// ```
/// SCardListReaders failed: SCARD_E_NO_SERVICE (0x8010001D): Service not available.
/// ```
public struct PCSCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PC/SC function that returned the code, e.g. `SCardConnect`.
    public let function: String
    /// The return code.
    public let code: Code
    /// pcsc-lite's description of the code (`pcsc_stringify_error`).
    public let message: String

    /// The return code's name, e.g. `SCARD_E_NO_READERS_AVAILABLE`.
    public var name: String { code.name }

    /// An error for `code` returned by `function`, with pcsc-lite's text for it.
    public init(function: String, code: Code) {
        self.function = function
        self.code = code
        self.message = String(cString: pcsc_stringify_error(LONG(code.rawValue)))
    }

    /// `SCardConnect failed: SCARD_E_NO_SMARTCARD (0x8010000C): No smart card inserted.`
    public var description: String {
        "\(function) failed: \(code): \(message)"
    }

    /// Throws unless `returnValue` is `SCARD_S_SUCCESS`.
    static func check(_ returnValue: LONG, _ function: String) throws(PCSCError) {
        guard returnValue != SCARD_S_SUCCESS else { return }
        throw PCSCError(function: function, code: Code(returnValue))
    }
}

extension PCSCError {
    /// A PC/SC return code (`SCARD_E_…`, `SCARD_W_…`, `SCARD_F_…`, `SCARD_P_…`), as pcsc-lite's
    /// `pcsclite.h` defines them. Codes are 32-bit values on every platform, although pcsc-lite
    /// on 64-bit Linux passes them around in a `long`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as pcsc-lite returns it (`0x8010002E`).
        public let rawValue: UInt32

        /// Any 32-bit code, known or not.
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        init(_ value: LONG) {
            self.rawValue = UInt32(truncatingIfNeeded: value)
        }

        /// The constant's name in `pcsclite.h`, or `0x…` for a code it does not define.
        public var name: String {
            Code.names[rawValue] ?? "0x" + hex
        }

        /// `NAME (0x8010002E)`.
        public var description: String {
            Code.names[rawValue] == nil ? "0x" + hex : "\(name) (0x\(hex))"
        }

        private var hex: String {
            let digits = String(rawValue, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }

        /// `SCARD_E_CANCELLED`: the wait was cancelled (`SCardCancel`).
        public static let cancelled = Code(SCARD_E_CANCELLED)
        /// `SCARD_E_INVALID_HANDLE`: the context or card handle is not (or no longer) valid.
        public static let invalidHandle = Code(SCARD_E_INVALID_HANDLE)
        /// `SCARD_E_INVALID_PARAMETER`.
        public static let invalidParameter = Code(SCARD_E_INVALID_PARAMETER)
        /// `SCARD_E_INVALID_VALUE`.
        public static let invalidValue = Code(SCARD_E_INVALID_VALUE)
        /// `SCARD_E_INSUFFICIENT_BUFFER`.
        public static let insufficientBuffer = Code(SCARD_E_INSUFFICIENT_BUFFER)
        /// `SCARD_E_UNKNOWN_READER`: no reader has that name.
        public static let unknownReader = Code(SCARD_E_UNKNOWN_READER)
        /// `SCARD_E_TIMEOUT`.
        public static let timeout = Code(SCARD_E_TIMEOUT)
        /// `SCARD_E_SHARING_VIOLATION`: another application holds the card exclusively.
        public static let sharingViolation = Code(SCARD_E_SHARING_VIOLATION)
        /// `SCARD_E_NO_SMARTCARD`: the reader is empty.
        public static let noSmartcard = Code(SCARD_E_NO_SMARTCARD)
        /// `SCARD_E_PROTO_MISMATCH`.
        public static let protocolMismatch = Code(SCARD_E_PROTO_MISMATCH)
        /// `SCARD_E_NOT_TRANSACTED`: ending a transaction that was not begun.
        public static let notTransacted = Code(SCARD_E_NOT_TRANSACTED)
        /// `SCARD_E_READER_UNAVAILABLE`.
        public static let readerUnavailable = Code(SCARD_E_READER_UNAVAILABLE)
        /// `SCARD_E_NO_SERVICE`: pcscd is not running (or not reachable).
        public static let noService = Code(SCARD_E_NO_SERVICE)
        /// `SCARD_E_SERVICE_STOPPED`: pcscd went away.
        public static let serviceStopped = Code(SCARD_E_SERVICE_STOPPED)
        /// `SCARD_E_NO_READERS_AVAILABLE`: pcscd runs but has no reader.
        public static let noReadersAvailable = Code(SCARD_E_NO_READERS_AVAILABLE)
        /// `SCARD_E_COMM_DATA_LOST`.
        public static let communicationDataLost = Code(SCARD_E_COMM_DATA_LOST)
        /// `SCARD_F_COMM_ERROR`: the reader driver failed to talk to the card.
        public static let communicationError = Code(SCARD_F_COMM_ERROR)
        /// `SCARD_W_UNRESPONSIVE_CARD`.
        public static let unresponsiveCard = Code(SCARD_W_UNRESPONSIVE_CARD)
        /// `SCARD_W_UNPOWERED_CARD`.
        public static let unpoweredCard = Code(SCARD_W_UNPOWERED_CARD)
        /// `SCARD_W_RESET_CARD`: another application reset the card; reconnect.
        public static let resetCard = Code(SCARD_W_RESET_CARD)
        /// `SCARD_W_REMOVED_CARD`: the card left the reader.
        public static let removedCard = Code(SCARD_W_REMOVED_CARD)

        /// Names of the codes `pcsclite.h` defines. `SCARD_E_UNEXPECTED` and
        /// `SCARD_E_UNSUPPORTED_FEATURE` share 0x8010001F; pcsc-lite means the latter.
        private static let names: [UInt32: String] = {
            let table: [(LONG, String)] = [
                (SCARD_S_SUCCESS, "SCARD_S_SUCCESS"),
                (SCARD_F_INTERNAL_ERROR, "SCARD_F_INTERNAL_ERROR"),
                (SCARD_E_CANCELLED, "SCARD_E_CANCELLED"),
                (SCARD_E_INVALID_HANDLE, "SCARD_E_INVALID_HANDLE"),
                (SCARD_E_INVALID_PARAMETER, "SCARD_E_INVALID_PARAMETER"),
                (SCARD_E_INVALID_TARGET, "SCARD_E_INVALID_TARGET"),
                (SCARD_E_NO_MEMORY, "SCARD_E_NO_MEMORY"),
                (SCARD_F_WAITED_TOO_LONG, "SCARD_F_WAITED_TOO_LONG"),
                (SCARD_E_INSUFFICIENT_BUFFER, "SCARD_E_INSUFFICIENT_BUFFER"),
                (SCARD_E_UNKNOWN_READER, "SCARD_E_UNKNOWN_READER"),
                (SCARD_E_TIMEOUT, "SCARD_E_TIMEOUT"),
                (SCARD_E_SHARING_VIOLATION, "SCARD_E_SHARING_VIOLATION"),
                (SCARD_E_NO_SMARTCARD, "SCARD_E_NO_SMARTCARD"),
                (SCARD_E_UNKNOWN_CARD, "SCARD_E_UNKNOWN_CARD"),
                (SCARD_E_CANT_DISPOSE, "SCARD_E_CANT_DISPOSE"),
                (SCARD_E_PROTO_MISMATCH, "SCARD_E_PROTO_MISMATCH"),
                (SCARD_E_NOT_READY, "SCARD_E_NOT_READY"),
                (SCARD_E_INVALID_VALUE, "SCARD_E_INVALID_VALUE"),
                (SCARD_E_SYSTEM_CANCELLED, "SCARD_E_SYSTEM_CANCELLED"),
                (SCARD_F_COMM_ERROR, "SCARD_F_COMM_ERROR"),
                (SCARD_F_UNKNOWN_ERROR, "SCARD_F_UNKNOWN_ERROR"),
                (SCARD_E_INVALID_ATR, "SCARD_E_INVALID_ATR"),
                (SCARD_E_NOT_TRANSACTED, "SCARD_E_NOT_TRANSACTED"),
                (SCARD_E_READER_UNAVAILABLE, "SCARD_E_READER_UNAVAILABLE"),
                (SCARD_P_SHUTDOWN, "SCARD_P_SHUTDOWN"),
                (SCARD_E_PCI_TOO_SMALL, "SCARD_E_PCI_TOO_SMALL"),
                (SCARD_E_READER_UNSUPPORTED, "SCARD_E_READER_UNSUPPORTED"),
                (SCARD_E_DUPLICATE_READER, "SCARD_E_DUPLICATE_READER"),
                (SCARD_E_CARD_UNSUPPORTED, "SCARD_E_CARD_UNSUPPORTED"),
                (SCARD_E_NO_SERVICE, "SCARD_E_NO_SERVICE"),
                (SCARD_E_SERVICE_STOPPED, "SCARD_E_SERVICE_STOPPED"),
                (SCARD_E_UNSUPPORTED_FEATURE, "SCARD_E_UNSUPPORTED_FEATURE"),
                (SCARD_E_ICC_INSTALLATION, "SCARD_E_ICC_INSTALLATION"),
                (SCARD_E_ICC_CREATEORDER, "SCARD_E_ICC_CREATEORDER"),
                (SCARD_E_DIR_NOT_FOUND, "SCARD_E_DIR_NOT_FOUND"),
                (SCARD_E_FILE_NOT_FOUND, "SCARD_E_FILE_NOT_FOUND"),
                (SCARD_E_NO_DIR, "SCARD_E_NO_DIR"),
                (SCARD_E_NO_FILE, "SCARD_E_NO_FILE"),
                (SCARD_E_NO_ACCESS, "SCARD_E_NO_ACCESS"),
                (SCARD_E_WRITE_TOO_MANY, "SCARD_E_WRITE_TOO_MANY"),
                (SCARD_E_BAD_SEEK, "SCARD_E_BAD_SEEK"),
                (SCARD_E_INVALID_CHV, "SCARD_E_INVALID_CHV"),
                (SCARD_E_UNKNOWN_RES_MNG, "SCARD_E_UNKNOWN_RES_MNG"),
                (SCARD_E_NO_SUCH_CERTIFICATE, "SCARD_E_NO_SUCH_CERTIFICATE"),
                (SCARD_E_CERTIFICATE_UNAVAILABLE, "SCARD_E_CERTIFICATE_UNAVAILABLE"),
                (SCARD_E_NO_READERS_AVAILABLE, "SCARD_E_NO_READERS_AVAILABLE"),
                (SCARD_E_COMM_DATA_LOST, "SCARD_E_COMM_DATA_LOST"),
                (SCARD_E_NO_KEY_CONTAINER, "SCARD_E_NO_KEY_CONTAINER"),
                (SCARD_E_SERVER_TOO_BUSY, "SCARD_E_SERVER_TOO_BUSY"),
                (SCARD_W_UNSUPPORTED_CARD, "SCARD_W_UNSUPPORTED_CARD"),
                (SCARD_W_UNRESPONSIVE_CARD, "SCARD_W_UNRESPONSIVE_CARD"),
                (SCARD_W_UNPOWERED_CARD, "SCARD_W_UNPOWERED_CARD"),
                (SCARD_W_RESET_CARD, "SCARD_W_RESET_CARD"),
                (SCARD_W_REMOVED_CARD, "SCARD_W_REMOVED_CARD"),
                (SCARD_W_SECURITY_VIOLATION, "SCARD_W_SECURITY_VIOLATION"),
                (SCARD_W_WRONG_CHV, "SCARD_W_WRONG_CHV"),
                (SCARD_W_CHV_BLOCKED, "SCARD_W_CHV_BLOCKED"),
                (SCARD_W_EOF, "SCARD_W_EOF"),
                (SCARD_W_CANCELLED_BY_USER, "SCARD_W_CANCELLED_BY_USER"),
                (SCARD_W_CARD_NOT_AUTHENTICATED, "SCARD_W_CARD_NOT_AUTHENTICATED"),
            ]
            return Dictionary(table.map { (UInt32(truncatingIfNeeded: $0.0), $0.1) }, uniquingKeysWith: { first, _ in first })
        }()
    }
}
