#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// One TCP connection to the vpcd driver, owned by the bridge thread. It closes its socket
/// in `deinit`.
///
/// Latency: vpcd writes a message's length and its payload in two TCP writes, and its socket
/// has Nagle's algorithm on, so the payload leaves only once the length is acknowledged; a
/// delayed ACK (Linux: up to 40 ms) would stall every message that long. So the socket gets
/// `TCP_NODELAY` once, and `TCP_QUICKACK` (which Linux clears again by itself, and which sends a
/// pending ACK at once) whenever a read leaves a message incomplete and after every message
/// handled; after the length's ACK has gone, `TCP_QUICKACK` off lets the payload's ACK wait for
/// the answer, which carries it (four segments per APDU instead of five). An answer leaves in
/// one `sendmsg`, length and payload together. A read takes all the socket holds, so a command
/// whose two parts are both there costs one `recv`: per command APDU, one `poll`, one `recv`,
/// one `sendmsg` and one `setsockopt` when the payload follows at once; when it does not, three
/// more: `TCP_QUICKACK` on and off, and a `recv` that blocks for the rest (no second `poll`).
final class VPCDConnection {
    private(set) var descriptor: Int32
    private var buffer = VPCDReceiveBuffer()
    /// The socket and the bridge's wake pipe, for `poll`; set up once.
    private var descriptors: [pollfd]

    /// What waiting for the driver ended with.
    enum Wait {
        case readable
        case woken
        case timedOut
    }

    /// What waiting for the next message ended with.
    enum Input {
        case message(VPCDReceiveBuffer.Message)
        /// The wake pipe was signalled (drained): other threads want something.
        case woken
        /// The deadline passed with no whole message.
        case timedOut
        /// The driver closed the connection between two messages.
        case closed
        case failed(String)
    }

    /// Why a connection could not be made or used.
    enum Failure: Error, CustomStringConvertible {
        case resolve(String)
        case connect(errno: Int32)
        case timedOut
        case woken
        case io(errno: Int32)

        var description: String {
            switch self {
            case .resolve(let message): "cannot resolve host: \(message)"
            case .connect(let code): String(cString: strerror(code))
            case .timedOut: "connection timed out: the driver accepts one card per slot; is another card process on it?"
            case .woken: "interrupted"
            case .io(let code): String(cString: strerror(code))
            }
        }
    }

    private init(descriptor: Int32, wake: WakePipe) {
        self.descriptor = descriptor
        descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
    }

    deinit {
        close()
    }

    /// Closes the socket (idempotent).
    func close() {
        if descriptor >= 0 {
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
            descriptor = -1
        }
    }

    /// Connects to exactly `endpoint` (every address its host resolves to, in order), giving
    /// up after `timeout` per address or when `wake` is signalled.
    static func open(to endpoint: VPCDEndpoint, timeout: Duration, wake: WakePipe) throws(Failure) -> VPCDConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            throw .resolve(String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }

        var lastFailure = Failure.connect(errno: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Self.closeOnExec, info.pointee.ai_protocol)
            guard fd >= 0 else { lastFailure = .connect(errno: errno); continue }
            let connection = VPCDConnection(descriptor: fd, wake: wake)
            do throws(Failure) {
                try connection.connect(to: info.pointee.ai_addr, length: info.pointee.ai_addrlen, timeout: timeout, wake: wake)
                connection.configure()
                return connection
            } catch {
                lastFailure = error
                if case .woken = error { throw error }
            }
        }
        throw lastFailure
    }

    private func connect(to address: UnsafeMutablePointer<sockaddr>, length: socklen_t, timeout: Duration, wake: WakePipe) throws(Failure) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        #if canImport(Glibc)
        let result = Glibc.connect(descriptor, address, length)
        #else
        let result = Darwin.connect(descriptor, address, length)
        #endif
        if result != 0 {
            guard errno == EINPROGRESS else { throw .connect(errno: errno) }
            switch waitForConnect(timeout: timeout, wake: wake) {
            case .woken: throw .woken
            case .timedOut: throw .timedOut
            case .readable: break
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw .connect(errno: error) }
        }
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }

    /// How long a read waits for the rest of a message whose start has come before going back to
    /// `poll` (which also watches the wake pipe): vpcd sends the payload as soon as the length's
    /// ACK reaches it, so this passes only with a driver that stops mid-message.
    static let restOfMessageWait = Duration.milliseconds(50)

    private func configure() {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var wait = timeval(tv_sec: 0, tv_usec: Int(Self.milliseconds(Self.restOfMessageWait)) * 1000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        rearmQuickAck()
    }

    /// `TCP_QUICKACK` on: ACKs leave at once, a pending one now.
    private func rearmQuickAck() {
        #if canImport(Glibc)
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `TCP_QUICKACK` off: the next ACK waits (at most the delayed-ACK time) for data to ride on.
    private func delayAcknowledgements() {
        #if canImport(Glibc)
        var zero: Int32 = 0
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &zero, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// The next whole message, waiting for it at most until `deadline` (or, once a message has
    /// begun, ``restOfMessageWait`` past it).
    func nextMessage(until deadline: ContinuousClock.Instant, wake: WakePipe) -> Input {
        var restIsComing = false
        while true {
            if let message = buffer.nextMessage() { return .message(message) }
            if !restIsComing {
                switch waitForInput(until: deadline, wake: wake) {
                case .woken: return .woken
                case .timedOut: return .timedOut
                case .readable: break
                }
            }
            // The rest of a begun message is read blocking (bounded by SO_RCVTIMEO): it follows
            // within microseconds, and a poll first would cost a system call per APDU.
            let flags = restIsComing ? 0 : Int32(MSG_DONTWAIT)
            restIsComing = false
            let descriptor = descriptor
            var failure: SystemCallError?
            let count = buffer.fill { space in
                do throws(SystemCallError) {
                    return try POSIX.receive(descriptor, into: space, flags: flags)
                } catch {
                    failure = error
                    return -1
                }
            }
            if count > 0 {
                if !buffer.holdsWholeMessage {
                    // vpcd holds the payload back until the length is acknowledged: acknowledge
                    // it now, then let the payload's ACK wait for the answer, which carries it.
                    rearmQuickAck()
                    delayAcknowledgements()
                    restIsComing = true
                }
                continue
            }
            if count == 0 {
                return buffer.isEmpty ? .closed : .failed("the driver closed the connection inside a message")
            }
            guard let failure, failure.code != EAGAIN && failure.code != EWOULDBLOCK else { continue }
            return .failed(SystemCallError.text(failure.code))
        }
    }

    /// Sends the framed `payload` (at most ``VPCDFraming/maximumPayload`` bytes) in one
    /// `sendmsg`, then re-arms `TCP_QUICKACK` for the next message.
    func send(_ payload: [UInt8]) throws(Failure) {
        let header = (UInt8(truncatingIfNeeded: payload.count >> 8), UInt8(truncatingIfNeeded: payload.count))
        let total = 2 + payload.count
        let descriptor = descriptor
        let result = withUnsafeBytes(of: header) { head in
            payload.withUnsafeBytes { body in
                Result { () throws(SystemCallError) in try POSIX.sendMessage(descriptor, header: head, body: body) }
            }
        }
        let sent: Int
        do throws(SystemCallError) {
            sent = try result.get()
        } catch {
            throw .io(errno: error.code)
        }
        if sent < total {
            // A short send (a full socket buffer): the rest the slow way.
            let rest = Array(([header.0, header.1] + payload)[sent...])
            do throws(SystemCallError) {
                try POSIX.sendAll(descriptor, rest)
            } catch {
                throw .io(errno: error.code)
            }
        }
        rearmQuickAck()
    }

    /// After a message that gets no answer (power on/off, reset): its ACK must leave now, or the
    /// driver's next message waits for the delayed one.
    func acknowledge() {
        rearmQuickAck()
    }

    /// Waits until the socket has input, `wake` is signalled (then drained), or `deadline` passes.
    /// (A signal does not end the wait: `serve` relays signals to a thread, which wakes the bridge.)
    private func waitForInput(until deadline: ContinuousClock.Instant, wake: WakePipe) -> Wait {
        do throws(SystemCallError) {
            guard try POSIX.poll(&descriptors, timeout: max(.zero, ContinuousClock.now.duration(to: deadline))) > 0 else {
                return .timedOut
            }
        } catch {
            return .readable  // let recv report it
        }
        if descriptors[1].revents != 0 {
            wake.drain()
            return .woken
        }
        return descriptors[0].revents != 0 ? .readable : .timedOut
    }

    /// Waits for the non-blocking connect to finish, `wake`, or `timeout`.
    private func waitForConnect(timeout: Duration, wake: WakePipe) -> Wait {
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        do throws(SystemCallError) {
            _ = try POSIX.poll(&fds, timeout: timeout)
        } catch {
            return .readable  // let getsockopt(SO_ERROR) report it
        }
        if fds[1].revents != 0 {
            wake.drain()
            return .woken
        }
        return fds[0].revents != 0 ? .readable : .timedOut
    }

    #if canImport(Glibc)
    private static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    #else
    private static let closeOnExec: Int32 = 0
    #endif

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
