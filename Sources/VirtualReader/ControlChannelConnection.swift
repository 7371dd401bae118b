/// One client of a ``ControlChannel``, as its thread sees it: the bytes of request lines not yet
/// run, the answer bytes the client has not yet taken, and the one request being run.
///
/// Bounded: the channel reads from a client only while it has nothing running and nothing
/// unsent (so a client that sends without reading gets one answer's worth of buffer and no
/// more), and a line may be at most ``ControlChannel/maximumLineLength`` bytes. Every call
/// that would block is the channel's, made non-blocking; this type only keeps the state.
struct ControlChannelConnection {
    /// The connected socket (non-blocking).
    let fd: Int32
    /// Received bytes not yet taken as request lines.
    private var input: [UInt8] = []
    /// Answer bytes not yet sent.
    private var output = SocketOutput()
    /// The request being run for this client, if any (one at a time: answers stay in order).
    var request: ControlChannelPendingRequest?
    /// The client sent its last byte (end of file).
    private(set) var inputEnded = false
    /// Since when unsent output has made no progress (the client is not reading); nil once
    /// sending failed (the client is gone: answers are dropped).
    var stalledSince: ContinuousClock.Instant? { output.stalledSince }
    /// After the unsent output goes, the connection ends (a refused line).
    private(set) var closing = false

    init(fd: Int32) {
        self.fd = fd
    }

    /// Whether there are answer bytes to send.
    var hasOutput: Bool { output.hasBytes }

    /// Whether the channel should read from the client now.
    var wantsInput: Bool { request == nil && !hasOutput && !inputEnded && !closing }

    /// Whether the connection is done: nothing running, nothing to send, and no more requests
    /// to come (the client finished sending, or was refused). Every line received in full is
    /// run, even when the client has gone before its answer.
    var isFinished: Bool {
        guard request == nil, !hasOutput else { return false }
        return closing || (inputEnded && !hasCompleteLine)
    }

    private var hasCompleteLine: Bool { input.contains(0x0A) }

    /// Takes `bytes` the client sent; empty means it has finished sending.
    mutating func received(_ bytes: [UInt8]) {
        if bytes.isEmpty { inputEnded = true } else { input += bytes }
    }

    /// The next request line (without its line end), skipping blank ones; nil when no complete
    /// line is buffered. Call only when no request is running.
    mutating func nextLine() -> String? {
        while let newline = input.firstIndex(of: 0x0A) {
            var line = input[..<newline]
            input.removeSubrange(...newline)
            if line.last == 0x0D { line = line.dropLast() }
            let text = String(decoding: line, as: UTF8.self)
            if !text.allSatisfy(\.isWhitespace) { return text }
        }
        return nil
    }

    /// Whether the unfinished line is already longer than a request may be.
    var lineTooLong: Bool { !hasCompleteLine && input.count > ControlChannel.maximumLineLength }

    /// Queues one answer line; `thenClose` ends the connection once it is sent.
    mutating func queue(_ answer: String, thenClose: Bool = false) {
        output.queue(Array((answer + "\n").utf8))
        if thenClose { closing = true }
    }

    /// Sends what the socket takes now, and notes whether the client keeps up.
    mutating func flush(at now: ContinuousClock.Instant) { output.flush(to: fd, at: now) }
}
