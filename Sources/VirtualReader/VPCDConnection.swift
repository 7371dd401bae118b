#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// One TCP connection to the vpcd driver, owned by the bridge thread. It closes its socket
/// in `deinit`.
///
/// Latency: vpcd writes a message's length and payload in two TCP writes. With Nagle's
/// algorithm on either side and delayed ACKs, each APDU then stalls ~40 ms. So the socket
/// gets `TCP_NODELAY` once and `TCP_QUICKACK` after every `recv` (Linux clears QUICKACK
/// again by itself), and each answer leaves in a single `send`.
final class VPCDConnection {
    private(set) var descriptor: Int32

    /// What waiting for input ended with.
    enum Wait {
        case readable
        case woken
        case timedOut
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

    private init(descriptor: Int32) {
        self.descriptor = descriptor
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
            let connection = VPCDConnection(descriptor: fd)
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
            switch poll(events: Int16(POLLOUT), timeout: timeout, wake: wake) {
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

    private func configure() {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        rearmQuickAck()
    }

    private func rearmQuickAck() {
        #if canImport(Glibc)
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Waits until the socket has input, `wake` is signalled, or `timeout` passes (nil: no
    /// timeout). A signalled `wake` is drained.
    func waitForInput(timeout: Duration?, wake: WakePipe) -> Wait {
        poll(events: Int16(POLLIN), timeout: timeout, wake: wake)
    }

    private func poll(events: Int16, timeout: Duration?, wake: WakePipe) -> Wait {
        var fds = [
            pollfd(fd: descriptor, events: events, revents: 0),
            pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        do throws(SystemCallError) {
            _ = try POSIX.poll(&fds, timeout: timeout)
        } catch {
            return .readable  // let the following recv report the error
        }
        if fds[1].revents != 0 {
            wake.drain()
            return .woken
        }
        if fds[0].revents != 0 { return .readable }
        return .timedOut
    }

    /// Receives up to `maxCount` bytes, blocking until at least one is there, the peer
    /// closes (empty result), or `wake` is signalled and `shouldStop` says so.
    func receive(maxCount: Int, wake: WakePipe, shouldStop: () -> Bool) throws(Failure) -> [UInt8] {
        while true {
            switch waitForInput(timeout: nil, wake: wake) {
            case .woken:
                if shouldStop() { throw .woken }
                continue
            case .timedOut:
                continue
            case .readable:
                break
            }
            let bytes: [UInt8]
            do throws(SystemCallError) {
                bytes = try POSIX.read(descriptor, upTo: maxCount)
            } catch where error.code == EAGAIN {
                continue
            } catch {
                throw .io(errno: error.code)
            }
            rearmQuickAck()
            return bytes
        }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(Failure) {
        do throws(SystemCallError) {
            try POSIX.sendAll(descriptor, bytes)
        } catch {
            throw .io(errno: error.code)
        }
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
