/// Why a ``CardTransport`` could not exchange an APDU.
public enum CardTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The card left the field (or was never there): nothing can reach it until it is tapped again.
    case cardRemoved(String)
    /// The exchange failed for another reason: reader, driver or resource manager error.
    case failed(String)
    /// The transport cannot do what was asked.
    case unsupported(String)
    /// The card did not answer in the time allowed (the reason says how long, and what was
    /// awaited); the exchange may still be under way on the card.
    case timedOut(String)
    /// The caller stopped waiting: the task that needed the answer was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .cardRemoved(let reason): "the card left the reader: \(reason)"
        case .failed(let reason): "the APDU exchange failed: \(reason)"
        case .unsupported(let reason): reason
        case .timedOut(let reason): reason
        case .cancelled: "the operation was cancelled"
        }
    }
}
