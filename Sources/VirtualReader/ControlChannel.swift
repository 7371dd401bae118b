#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONSupport
import POSIXSupport
import Synchronization

/// The local control channel of a served card: a Unix-domain socket on which a test, in any
/// language, steers the card between steps — tap it, inject faults, set its PIN, add
/// credentials (see ``ControlRequest`` for the requests and their JSON).
///
/// Protocol: a client connects, writes one JSON request per line and reads one JSON answer per
/// line; it may send many requests on one connection, and several clients may be connected.
///
/// Safety: the socket is created owner-only (mode 0600, under a `0177` umask so it is never
/// more open, even for an instant) and is never on the network. A connecting peer whose user
/// is neither the server's nor root is refused (`SO_PEERCRED`). An existing socket at the path is
/// replaced only if it is the caller's own and nothing answers on it (a stale one); any other
/// file there is an error. A request line may be up to 64 KiB.
///
/// Threading: the channel's own thread reads requests; each one is handed to `executor`, which
/// must run it where the card may be used — for a served card, ``VPCDBridge/perform(_:)``, so it
/// runs on the bridge thread between two APDUs. An answer not produced within the request
/// time-out (10 s by default) is a time-out error.
public final class ControlChannel: @unchecked Sendable {
    // Sendability: the descriptors are set in init and closed by the channel thread after
    // `stop()`; the handler runs only through `executor`; `stopRequested` is atomic.

    /// Runs a request's work where the card may be used.
    public typealias Executor = @Sendable (@escaping @Sendable () -> Void) -> Void

    /// The socket's path.
    public let path: String
    /// The longest request line accepted.
    public static let maximumLineLength = 64 * 1024
    /// How long a request may wait for the card.
    public let requestTimeout: Duration

    private let handler: ControlChannelHandler
    private let executor: Executor
    private let listener: Int32
    private let wake = WakePipe()
    private let stopRequested = Atomic<Bool>(false)
    private let socketIdentity: (device: UInt64, inode: UInt64)
    private var thread: POSIXThread?

    /// Creates the socket at `path` (see the type's safety rules) and listens; ``start()`` serves it.
    public init(path: String, handler: ControlChannelHandler, requestTimeout: Duration = .seconds(10),
                executor: @escaping Executor) throws(ControlChannelError) {
        self.path = path
        self.handler = handler
        self.requestTimeout = requestTimeout
        self.executor = executor
        guard var address = ControlChannelSocket.address(path) else {
            throw .socket("control socket path is too long for a Unix socket (at most 107 bytes): \(path)")
        }
        try Self.removeStaleSocket(at: path)
        let fd = ControlChannelSocket.makeSocket()
        guard fd >= 0 else { throw .socket("cannot create a Unix socket: \(ControlChannelSocket.errorText(errno))") }
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            ControlChannelSocket.closeSocket(fd)
            throw .socket("cannot create the control socket \(path): \(ControlChannelSocket.errorText(bindError))")
        }
        chmod(path, 0o600)
        guard listen(fd, 8) == 0 else {
            let reason = ControlChannelSocket.errorText(errno)
            ControlChannelSocket.closeSocket(fd)
            unlink(path)
            throw .socket("cannot listen on the control socket \(path): \(reason)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var status = stat()
        _ = lstat(path, &status)
        socketIdentity = (UInt64(status.st_dev), UInt64(status.st_ino))
        listener = fd
    }

    deinit {
        if thread == nil { closeAndUnlink() }
    }

    /// Serves the socket on a thread of its own until ``stop()``.
    public func start() {
        guard thread == nil else { return }
        thread = try? POSIXThread.start { self.serve() }
    }

    /// Stops serving, closes every connection and removes the socket file. Waits for the
    /// channel's thread; idempotent.
    public func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        if let thread {
            self.thread = nil
            thread.join()
        } else {
            closeAndUnlink()
        }
    }

    private var closed = false

    private func closeAndUnlink() {
        guard !closed else { return }
        closed = true
        ControlChannelSocket.closeSocket(listener)
        // Only our own socket: another server may have replaced a path we no longer own.
        var status = stat()
        if lstat(path, &status) == 0, UInt64(status.st_dev) == socketIdentity.device,
           UInt64(status.st_ino) == socketIdentity.inode {
            unlink(path)
        }
    }

    /// The default control socket for the card served to `endpoint`:
    /// `<runtimeDirectory>/arculus-card-<slot>.sock` (slot = port − 35963) when there is a runtime
    /// directory (`$XDG_RUNTIME_DIR` by default), else `/tmp/arculus-card-<uid>-<port>.sock`.
    public static func defaultPath(for endpoint: VPCDEndpoint,
                                   runtimeDirectory: String? = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }) -> String {
        if let runtime = runtimeDirectory, !runtime.isEmpty {
            let slot = Int(endpoint.port) - Int(VPCDEndpoint.basePort)
            let name = slot >= 0 ? "\(slot)" : "port-\(endpoint.port)"
            return runtime + "/arculus-card-\(name).sock"
        }
        return "/tmp/arculus-card-\(getuid())-\(endpoint.port).sock"
    }

    // MARK: - Stale sockets

    private static func removeStaleSocket(at path: String) throws(ControlChannelError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw .socket("\(path) exists and is not a socket; refusing to replace it")
        }
        guard status.st_uid == geteuid() else {
            throw .socket("the socket \(path) belongs to another user; refusing to replace it")
        }
        let probe = ControlChannelSocket.makeSocket()
        if probe >= 0 {
            defer { ControlChannelSocket.closeSocket(probe) }
            if ControlChannelSocket.connect(probe, to: path) == nil {
                throw .socket("another card already serves the control socket \(path) (use --control to choose another)")
            }
        }
        unlink(path)
    }

    // MARK: - Serving

    /// A connected client and the bytes of its unfinished line.
    private struct Client {
        let fd: Int32
        var buffer: [UInt8] = []
    }

    private func serve() {
        var clients: [Client] = []
        defer {
            for client in clients { ControlChannelSocket.closeSocket(client.fd) }
            closeAndUnlink()
        }
        while !stopRequested.load(ordering: .sequentiallyConsistent) {
            var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard (try? POSIX.poll(&fds, timeout: nil)) != nil else { return }
            if fds[0].revents != 0 { wake.drain() }
            if stopRequested.load(ordering: .sequentiallyConsistent) { return }
            var open: [Client] = []
            for (index, var client) in clients.enumerated() {
                let events = fds[2 + index].revents
                if events == 0 || read(into: &client) {
                    open.append(client)
                } else {
                    ControlChannelSocket.closeSocket(client.fd)
                }
            }
            if fds[1].revents != 0, let client = accept() { open.append(Client(fd: client)) }
            clients = open
        }
    }

    /// Accepts one connection from an allowed peer.
    private func accept() -> Int32? {
        #if canImport(Glibc)
        let fd = Glibc.accept(listener, nil, nil)
        #else
        let fd = Darwin.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        guard Self.peerIsAllowed(fd) else {
            let refusal = ControlChannelError.refused("refused: the control socket serves its owner only").answer()
            _ = ControlChannelSocket.sendAll(fd, Array((refusal.text + "\n").utf8))
            ControlChannelSocket.closeSocket(fd)
            return nil
        }
        return fd
    }

    /// The peer runs as our user or as root (the socket's mode already keeps others out).
    private static func peerIsAllowed(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc exports it only with _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
        var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return false }
        return credentials.uid == geteuid() || credentials.uid == 0
        #else
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard getpeereid(fd, &uid, &gid) == 0 else { return false }
        return uid == geteuid() || uid == 0
        #endif
    }

    /// Reads what the client sent and answers each complete line; false when the connection ends.
    private func read(into client: inout Client) -> Bool {
        let chunk: [UInt8]
        do throws(SystemCallError) {
            chunk = try POSIX.read(client.fd, upTo: 4096)
        } catch {
            return error.code == EAGAIN
        }
        if chunk.isEmpty { return false }
        client.buffer += chunk
        while let newline = client.buffer.firstIndex(of: 0x0A) {
            let line = String(decoding: client.buffer[..<newline], as: UTF8.self)
            client.buffer.removeSubrange(...newline)
            let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if trimmed.allSatisfy(\.isWhitespace) { continue }
            guard ControlChannelSocket.sendAll(client.fd, Array((answer(trimmed) + "\n").utf8)) else { return false }
        }
        if client.buffer.count > Self.maximumLineLength {
            let refusal = ControlChannelError.refused("request line longer than \(Self.maximumLineLength) bytes").answer()
            _ = ControlChannelSocket.sendAll(client.fd, Array((refusal.text + "\n").utf8))
            return false
        }
        return true
    }

    /// Runs one request through the executor and waits for its answer.
    private func answer(_ line: String) -> String {
        let result = RequestResult()
        let handler = handler
        executor {
            result.finish(handler.respond(to: line))
        }
        guard let answer = result.wait(for: requestTimeout) else {
            return ControlChannelError.timedOut.answer().text
        }
        return answer
    }
}

/// One request's answer, handed from the card's thread to the channel's thread.
private final class RequestResult: Sendable {
    private let state = Mutex<String?>(nil)
    private let done = Atomic<Bool>(false)

    func finish(_ answer: String) {
        state.withLock { $0 = answer }
        done.store(true, ordering: .sequentiallyConsistent)
    }

    /// The answer, or nil when none came within `timeout` (polled: a request takes milliseconds).
    func wait(for timeout: Duration) -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
        while !done.load(ordering: .sequentiallyConsistent) {
            if clock.now >= deadline { return nil }
            nanosleep(&pause, nil)
            pause.tv_nsec = min(pause.tv_nsec * 2, 5_000_000)
        }
        return state.withLock { $0 }
    }
}
