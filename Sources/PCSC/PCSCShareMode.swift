internal import CPCSCLite

/// How an application shares a card with others (`dwShareMode` of `SCardConnect`).
public enum PCSCShareMode: Sendable {
    /// Other applications may connect too (`SCARD_SHARE_SHARED`); use transactions to keep a
    /// sequence of APDUs together.
    case shared
    /// No other application may connect while this one is (`SCARD_SHARE_EXCLUSIVE`).
    case exclusive

    var dword: DWORD { DWORD(self == .shared ? SCARD_SHARE_SHARED : SCARD_SHARE_EXCLUSIVE) }
}
