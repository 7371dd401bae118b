/// The bytes a server has queued for one client on a non-blocking socket, sent as the socket
/// takes them, with since when the client has taken none: the control channel's answer lines,
/// the card page's answers and event streams.
public struct SocketOutput: Sendable {
    /// Queued bytes, those before `start` sent.
    private var bytes: [UInt8] = []
    private var start = 0
    /// Since when unsent bytes have made no progress (the client is not reading).
    public private(set) var stalledSince: ContinuousClock.Instant?
    /// Sending failed (the client is gone) or was given up: nothing more is sent.
    public private(set) var failed = false

    public init() {}

    /// Whether there are bytes to send.
    public var hasBytes: Bool { !failed && start < bytes.count }
    /// How many queued bytes are not yet sent.
    public var backlog: Int { bytes.count - start }

    /// Queues `more` after what is not yet sent.
    public mutating func queue(_ more: [UInt8]) {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        }
        bytes += more
    }

    /// Sends what the socket `fd` takes now.
    public mutating func flush(to fd: Int32, at now: ContinuousClock.Instant) {
        while hasBytes {
            switch ControlChannelSocket.sendSome(fd, bytes[start...]) {
            case .sent(let count):
                start += count
                stalledSince = nil
            case .full:
                if stalledSince == nil { stalledSince = now }
                return
            case .failed:
                fail()
                return
            }
        }
    }

    /// Sends nothing more (the client is gone, or fell too far behind).
    public mutating func fail() {
        failed = true
        stalledSince = nil
    }
}
