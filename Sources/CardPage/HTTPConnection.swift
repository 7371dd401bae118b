#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import VirtualReader

/// One client of the card page's server, as its thread sees it: bytes received and not yet read
/// as a request, bytes of the answer not yet sent, and what the connection is doing. Every call
/// that would block is the server's, made non-blocking; this type only keeps the state.
///
/// Bounded: a request may be at most ``HTTPRequest/maximumHeadLength`` plus
/// ``HTTPRequest/maximumBodyLength`` bytes; an event stream whose client does not keep up is
/// dropped once ``maximumStreamBacklog`` bytes wait for it (the page's EventSource reconnects and
/// is sent the state anew).
struct HTTPConnection {
    let fd: Int32
    /// When it was accepted: a request must arrive in full within the server's time-out.
    let openedAt: ContinuousClock.Instant
    private(set) var input: [UInt8] = []
    private var output = SocketOutput()
    var phase: Phase = .reading
    /// Since when unsent output has made no progress.
    var stalledSince: ContinuousClock.Instant? { output.stalledSince }
    /// Sending failed, or the client hung up.
    var failed: Bool { output.failed }

    /// The most answer bytes an event stream may have waiting.
    static let maximumStreamBacklog = 4 * 1024 * 1024

    enum Phase {
        /// Reading the request.
        case reading
        /// Waiting for the card to run the request's work, then answering with `finish`.
        case waiting(ControlChannelPendingRequest, finish: @Sendable (String) -> HTTPResponse)
        /// Answered: closed once the answer is sent.
        case answered
        /// An event stream for the card at this index.
        case streaming(card: Int)
    }

    init(fd: Int32, at now: ContinuousClock.Instant) {
        self.fd = fd
        openedAt = now
    }

    var hasOutput: Bool { output.hasBytes }
    var backlog: Int { output.backlog }

    var isStreaming: Bool {
        if case .streaming = phase { return true }
        return false
    }

    /// Since when an answered connection, its answer sent, has been closed for writing and waits
    /// for the client to hang up (so that what the client still sends, such as the rest of a
    /// body refused unread, does not make the close a reset that loses the answer).
    private(set) var lingeringSince: ContinuousClock.Instant?

    /// How long a connection lingers after its answer.
    static let linger = Duration.seconds(1)

    /// Whether it is done: failed, or answered, sent and lingered.
    func isFinished(at now: ContinuousClock.Instant) -> Bool {
        if failed { return true }
        guard let lingeringSince else { return false }
        return now - lingeringSince >= Self.linger
    }

    /// Closes an answered connection for writing once its answer is sent.
    mutating func linger(at now: ContinuousClock.Instant) {
        guard case .answered = phase, !hasOutput, lingeringSince == nil else { return }
        _ = shutdown(fd, Int32(SHUT_WR))
        lingeringSince = now
    }

    /// Takes bytes the client sent; an empty read means it hung up (a stream ends then; a
    /// request still being read is abandoned).
    mutating func received(_ bytes: [UInt8]) {
        if bytes.isEmpty {
            switch phase {
            case .reading, .streaming, .answered: output.fail()
            case .waiting: break
            }
            return
        }
        // What a stream's client sends is not read; a request's bytes are kept up to the limit.
        guard case .reading = phase else { return }
        input += bytes
    }

    /// Answers with `response`; the connection closes once it is sent.
    mutating func answer(_ response: HTTPResponse) {
        queue(response.bytes())
        phase = .answered
    }

    /// Queues bytes to send.
    mutating func queue(_ bytes: [UInt8]) { output.queue(bytes) }

    /// Sends what the socket takes now.
    mutating func flush(at now: ContinuousClock.Instant) { output.flush(to: fd, at: now) }

    /// Ends the connection at once (a stream that fell too far behind).
    mutating func drop() { output.fail() }
}
