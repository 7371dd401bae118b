internal import CPCSCLite

/// What happens to the card when a connection or transaction ends, or on reconnect
/// (`dwDisposition` / `dwInitialization`).
public enum PCSCDisposition: Sendable {
    /// Leave it as it is (`SCARD_LEAVE_CARD`): powered, applet still selected.
    case leave
    /// Warm reset (`SCARD_RESET_CARD`): the card answers its ATR again and forgets its volatile
    /// state (selected applet, PIN tokens).
    case reset
    /// Cold reset (`SCARD_UNPOWER_CARD`): power off (and, on reconnect, on again).
    case unpower

    var dword: DWORD {
        switch self {
        case .leave: DWORD(SCARD_LEAVE_CARD)
        case .reset: DWORD(SCARD_RESET_CARD)
        case .unpower: DWORD(SCARD_UNPOWER_CARD)
        }
    }
}
