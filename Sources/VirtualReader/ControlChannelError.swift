/// Why the control channel, or one request on it, failed. The message is what the answer's
/// `error` member and `arculus-card ctl` show.
///
/// The cases a client must tell apart to know what happened to the card carry an `errorKind`
/// member in the answer (``kind``): a request that was never started (``notTaken(within:)``,
/// ``busy(_:)``: nothing changed, it is safe to send again) is not one that was started and not
/// finished in time (``unanswered(within:)``: it may have been carried out).
public enum ControlChannelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request is not understood (not JSON, unknown `op`, a missing or mistyped member).
    case badRequest(String)
    /// The request is understood but the card refuses it (see the message).
    case refused(String)
    /// The socket cannot be created, reached or used.
    case socket(String)
    /// A client's refusal to use a socket it cannot trust (its directory or owner is wrong, or
    /// the process serving it runs as another user): nothing was sent. `path` is what was
    /// refused (the socket, its directory or the discovery record), `reason` why.
    case untrusted(path: String, reason: String)
    /// The card did not start the request within the time-out (it was busy with a command, or
    /// stopping), and never will: the request was withdrawn, nothing changed.
    case notTaken(within: Duration)
    /// The card started the request but did not finish it within the time-out: it may still
    /// have been carried out.
    case unanswered(within: Duration)
    /// The channel refused the connection (too many open, or the process is short of file
    /// descriptors): nothing was run.
    case busy(String)

    public var description: String {
        switch self {
        case .badRequest(let why): "bad request: \(why)"
        case .refused(let why), .socket(let why): why
        case .untrusted(let path, let reason): "refusing \(path): \(reason); nothing was sent"
        case .notTaken(let limit):
            "the card did not take the request within \(VPCDBridge.DisconnectReason.seconds(limit)) "
                + "(it is busy with a command, or stopping); nothing was changed"
        case .unanswered(let limit):
            "the card took the request but did not answer within \(VPCDBridge.DisconnectReason.seconds(limit)); "
                + "it may still have been carried out"
        case .busy(let why): "\(why); nothing was changed"
        }
    }

    /// What is wrong, without the "bad request:" of ``description`` (for a message that puts it
    /// in its own words, such as a command line's).
    public var reason: String {
        switch self {
        case .badRequest(let why), .refused(let why), .socket(let why): why
        case .untrusted, .notTaken, .unanswered, .busy: description
        }
    }

    /// The answer's `errorKind` member: `not-taken`, `unanswered` or `busy` for the failures that
    /// say what became of the request; nil for the others (a bad request or a refusal: nothing
    /// changed).
    public var kind: String? {
        switch self {
        case .notTaken: "not-taken"
        case .unanswered: "unanswered"
        case .busy: "busy"
        case .badRequest, .refused, .socket, .untrusted: nil
        }
    }
}
