/// Why the control channel, or one request on it, failed. The message is what the answer's
/// `error` member and `arculus-card ctl` show.
public enum ControlChannelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request is not understood (not JSON, unknown `op`, a missing or mistyped member).
    case badRequest(String)
    /// The request is understood but the card refuses it (see the message).
    case refused(String)
    /// The socket cannot be created, reached or used.
    case socket(String)
    /// The card did not run the request in time (the served card is stopping, or stuck).
    case timedOut

    public var description: String {
        switch self {
        case .badRequest(let why): "bad request: \(why)"
        case .refused(let why): why
        case .socket(let why): why
        case .timedOut: "the card did not take the request in time (is it stopping?)"
        }
    }

    /// What is wrong, without the "bad request:" of ``description`` (for a message that puts it
    /// in its own words, such as a command line's).
    public var reason: String {
        switch self {
        case .badRequest(let why), .refused(let why), .socket(let why): why
        case .timedOut: description
        }
    }
}
