#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a server on a listening socket takes new connections without being worn down by them,
/// as the control channel and the card page do: within a cap of connections, never leaving the
/// process fewer than a reserve of free file descriptors (the card's reader needs some to
/// reconnect), and — when `accept` itself runs out of descriptors — not again until a back-off
/// has passed (the pending connection would make `poll` report the listener ready at once, for
/// ever: a busy loop).
public struct ConnectionAdmission: Sendable {
    /// The most connections held at once.
    public let maximumConnections: Int
    /// File descriptors a new connection must leave free (below the process's limit).
    public let reservedDescriptors: Int
    /// While out of descriptors: when to try again.
    public private(set) var resumesAt: ContinuousClock.Instant?
    private var backOff = Self.firstBackOff

    static let firstBackOff = Duration.milliseconds(100)
    static let longestBackOff = Duration.seconds(2)

    public init(maximumConnections: Int, reservedDescriptors: Int) {
        self.maximumConnections = maximumConnections
        self.reservedDescriptors = reservedDescriptors
    }

    /// Whether to poll the listener now.
    public mutating func isAccepting(at now: ContinuousClock.Instant) -> Bool {
        guard let resume = resumesAt else { return true }
        guard now >= resume else { return false }
        resumesAt = nil
        return true
    }

    /// Accepts one pending connection, made non-blocking and close-on-exec; nil when there was
    /// none or descriptors ran out (then accepting pauses).
    public mutating func accept(on listener: Int32, at now: ContinuousClock.Instant) -> Int32? {
        #if canImport(Glibc)
        let fd = Glibc.accept(listener, nil, nil)
        #else
        let fd = Darwin.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else {
            if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) {
                resumesAt = now + backOff
                backOff = min(backOff * 2, Self.longestBackOff)
            }
            return nil
        }
        backOff = Self.firstBackOff
        ControlChannelSocket.configureAccepted(fd)
        return fd
    }

    /// Why the new connection `fd` is to be refused at once, if it is, with `open` connections
    /// held: too many, or too few descriptors left.
    public func refusal(of fd: Int32, open: Int, what: String) -> String? {
        if open >= maximumConnections {
            return "too many \(what) connections (at most \(maximumConnections) at once): close one and try again"
        }
        // Descriptors are handed out lowest first, so one this high means few are left.
        if let limit = Self.descriptorLimit(), UInt64(fd) + UInt64(reservedDescriptors) >= limit {
            return "serve is short of file descriptors (its limit is \(limit), and \(reservedDescriptors) "
                + "are kept for the card's reader): close a \(what) connection and try again"
        }
        return nil
    }

    /// The process's soft limit of open files, nil when unlimited (read each time: a test may
    /// lower it while the card runs, with prlimit).
    static func descriptorLimit() -> UInt64? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        // RLIM_INFINITY is all ones.
        return limit.rlim_cur == rlim_t.max ? nil : UInt64(limit.rlim_cur)
    }
}
