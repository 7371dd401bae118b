#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONSupport
import POSIXSupport

/// The local control channel of a served card: a Unix-domain socket on which a test, in any
/// language, steers the card between steps — tap it, inject faults, set its PIN, add
/// credentials (see ``ControlRequest`` for the requests and their JSON).
///
/// Protocol: a client connects, writes one JSON request per line and reads one JSON answer per
/// line, in order; it may send many requests on one connection, and several clients may be
/// connected.
///
/// Where it lives: by default (``init(defaultFor:location:handler:requestTimeout:executor:)``)
/// in a directory made for it with `mkdtemp`, its path written to a discovery record only the
/// user can write (``ControlChannelLocation``); or at an explicit path, whose directory must be
/// the user's own and writable by nobody else. The socket is created owner-only (mode 0600,
/// under a `0177` umask so it is never more open, even for an instant) and is never on the
/// network. A connecting peer whose user is neither the server's nor root is refused
/// (`SO_PEERCRED`), as the client refuses a server that is neither (``ControlChannelClient``).
/// An existing socket at an explicit path is replaced only if it is the caller's own and
/// nothing answers on it (a stale one); any other file there is an error.
///
/// Limits: a request line may be up to 64 KiB; at most ``maximumConnections`` clients at once,
/// and none that would leave the process fewer than ``reservedDescriptors`` free file
/// descriptors (the card's reader needs some to reconnect) — a refused connection gets one
/// `busy` answer line and is closed; when `accept` runs out of descriptors all the same, the
/// channel waits a moment before it accepts again instead of spinning. Every write to a client
/// is non-blocking: a client that sends without reading only stops being read, and is
/// disconnected when its answers have not moved for the request time-out, so it can delay
/// neither other clients nor ``stop()``.
///
/// Threading: the channel's own thread reads requests; each one is handed to `executor`, which
/// must run it where the card may be used — for a served card, ``VPCDBridge/perform(_:)``, so it
/// runs on the bridge thread between two APDUs. A request the card has not started within the
/// request time-out (10 s by default) is withdrawn and answered ``ControlChannelError/notTaken(within:)``;
/// one it started and has not finished is answered ``ControlChannelError/unanswered(within:)``.
public final class ControlChannel: @unchecked Sendable {
    // Sendability: the descriptors are set in init and closed once (``ServingThread``);
    // `respond` runs only through `executor`; the connections are the channel thread's alone.

    /// Runs a request's work where the card may be used.
    public typealias Executor = @Sendable (@escaping @Sendable () -> Void) -> Void

    /// The socket's path.
    public let path: String
    /// The longest request line accepted.
    public static let maximumLineLength = 64 * 1024
    /// The most clients connected at once.
    public static let maximumConnections = 32
    /// File descriptors a new connection must leave free (below the process's limit).
    public static let reservedDescriptors = 16
    /// How long a request may wait for the card, and an unread answer for its client.
    public let requestTimeout: Duration

    private let respond: @Sendable (String) -> String
    private let executor: Executor
    private let listener: Int32
    private let serving = ServingThread()
    private let socketIdentity: (device: UInt64, inode: UInt64)
    /// The directory made for the socket (default placement), removed with it.
    private let ownedDirectory: String?
    /// The discovery record naming the socket (default placement), withdrawn with it.
    private let record: (location: ControlChannelLocation, endpoint: VPCDEndpoint)?

    /// Creates the socket at `path` and listens; ``start()`` serves it. The path's directory must
    /// be the user's own and writable by nobody else (see the type's safety rules).
    public convenience init(path: String, handler: ControlChannelHandler, requestTimeout: Duration = .seconds(10),
                            executor: @escaping Executor) throws(ControlChannelError) {
        try self.init(path: path, requestTimeout: requestTimeout, executor: executor, respond: handler.respond(to:))
    }

    /// Creates the default socket of the card served to `endpoint`: in a new private directory,
    /// its path recorded where `arculus-card ctl` looks for that port (``ControlChannelLocation``).
    public convenience init(defaultFor endpoint: VPCDEndpoint, location: ControlChannelLocation = .current(),
                            handler: ControlChannelHandler, requestTimeout: Duration = .seconds(10),
                            executor: @escaping Executor) throws(ControlChannelError) {
        let made = try location.makeSocketDirectory(for: endpoint)
        do {
            try self.init(socketPath: made.socket, ownedDirectory: made.directory, record: (location, endpoint),
                          requestTimeout: requestTimeout, executor: executor, respond: handler.respond(to:))
        } catch {
            _ = rmdir(made.directory)
            throw error
        }
        do {
            try location.publish(made.socket, for: endpoint)
        } catch {
            stop()
            throw error
        }
    }

    /// ``init(path:handler:requestTimeout:executor:)`` with any request-to-answer function.
    convenience init(path: String, requestTimeout: Duration = .seconds(10), executor: @escaping Executor,
                     respond: @escaping @Sendable (String) -> String) throws(ControlChannelError) {
        let directory = ControlChannelDirectory.parent(of: path)
        switch ControlChannelDirectory.check(directory: directory) {
        case .fit: break
        case .missing: throw .socket("cannot create the control socket \(path): its directory \(directory) does not exist")
        case let verdict:
            throw .socket("cannot create the control socket \(path): \(verdict.problem("its directory \(directory)") ?? ""); "
                          + "choose a directory only you can write, or leave --control out")
        }
        guard ControlChannelSocket.address(path) != nil else {
            throw .socket("control socket path is too long for a Unix socket (at most 107 bytes): \(path)")
        }
        try Self.removeStaleSocket(at: path)
        try self.init(socketPath: path, ownedDirectory: nil, record: nil, requestTimeout: requestTimeout,
                      executor: executor, respond: respond)
    }

    private init(socketPath path: String, ownedDirectory: String?, record: (ControlChannelLocation, VPCDEndpoint)?,
                 requestTimeout: Duration, executor: @escaping Executor,
                 respond: @escaping @Sendable (String) -> String) throws(ControlChannelError) {
        self.path = path
        self.ownedDirectory = ownedDirectory
        self.record = record.map { (location: $0.0, endpoint: $0.1) }
        self.requestTimeout = requestTimeout
        self.executor = executor
        self.respond = respond
        guard let address = ControlChannelSocket.address(path) else {
            throw .socket("control socket path is too long for a Unix socket (at most 107 bytes): \(path)")
        }
        let fd = ControlChannelSocket.makeSocket()
        guard fd >= 0 else { throw .socket("cannot create a Unix socket: \(ControlChannelSocket.errorText(errno))") }
        do {
            let previousMask = umask(0o177)
            defer { umask(previousMask) }
            try POSIX.bind(fd, to: address)
        } catch {
            ControlChannelSocket.closeSocket(fd)
            throw .socket("cannot create the control socket \(path): \(ControlChannelSocket.errorText(error.code))")
        }
        chmod(path, 0o600)
        do {
            try POSIX.listen(fd)
        } catch {
            ControlChannelSocket.closeSocket(fd)
            unlink(path)
            throw .socket("cannot listen on the control socket \(path): \(ControlChannelSocket.errorText(error.code))")
        }
        var status = stat()
        _ = lstat(path, &status)
        socketIdentity = (UInt64(status.st_dev), UInt64(status.st_ino))
        listener = fd
    }

    deinit {
        serving.closeUnlessRunning(closeAndUnlink)
    }

    /// Serves the socket on a thread of its own until ``stop()``.
    public func start() {
        serving.start { self.serve() }
    }

    /// Stops serving, closes every connection and removes the socket file (with the directory
    /// and record made for it). Waits for the channel's thread, which no client can hold up;
    /// idempotent.
    public func stop() {
        serving.stop(closing: closeAndUnlink)
    }

    private func closeAndUnlink() {
        ControlChannelSocket.closeSocket(listener)
        // Only our own socket: another server may have replaced a path we no longer own.
        var status = stat()
        if lstat(path, &status) == 0, UInt64(status.st_dev) == socketIdentity.device,
           UInt64(status.st_ino) == socketIdentity.inode {
            unlink(path)
        }
        if let record { record.location.withdraw(path, for: record.endpoint) }
        if let ownedDirectory { _ = rmdir(ownedDirectory) }
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

    private func serve() {
        var connections: [ControlChannelConnection] = []
        var acceptor = Acceptor()
        let clock = ContinuousClock()
        defer {
            for connection in connections { ControlChannelSocket.closeSocket(connection.fd) }
            serving.close(closeAndUnlink)
        }
        while !serving.isStopping {
            let now = clock.now
            for index in connections.indices { advance(&connections[index], at: now) }
            connections.removeAll { connection in
                // A client that has not taken its answers for a whole time-out is not reading.
                let stalled = connection.stalledSince.map { now - $0 >= requestTimeout } ?? false
                guard connection.isFinished || stalled else { return false }
                ControlChannelSocket.closeSocket(connection.fd)
                return true
            }

            // Nothing is polled that cannot be acted on: a client whose request is running is
            // left out (fd -1), or its hang-up would wake the loop again and again.
            let acceptNow = acceptor.isAccepting(at: now)
            var fds = [pollfd(fd: serving.wake.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: acceptNow ? listener : -1, events: Int16(POLLIN), revents: 0)]
            for connection in connections {
                let events = (connection.wantsInput ? Int16(POLLIN) : 0) | (connection.hasOutput ? Int16(POLLOUT) : 0)
                fds.append(pollfd(fd: events == 0 ? -1 : connection.fd, events: events, revents: 0))
            }
            var deadlines = connections.compactMap { $0.request?.deadline }
            deadlines += connections.compactMap { $0.stalledSince.map { $0 + requestTimeout } }
            if let resume = acceptor.resumesAt { deadlines.append(resume) }
            let timeout = deadlines.min().map { max(.zero, now.duration(to: $0)) }
            guard (try? POSIX.poll(&fds, timeout: timeout)) != nil else { return }
            if fds[0].revents != 0 { serving.wake.drain() }
            if serving.isStopping { return }

            let later = clock.now
            for index in connections.indices {
                let events = fds[2 + index].revents
                if events & Int16(POLLOUT | POLLERR | POLLHUP) != 0, connections[index].hasOutput {
                    connections[index].flush(at: later)
                }
                if events != 0, connections[index].wantsInput { read(&connections[index]) }
            }
            if fds[1].revents != 0, let connection = acceptor.accept(on: listener, open: connections.count, at: later) {
                connections.append(connection)
            }
        }
    }

    /// Moves one connection on: takes a finished request's answer, answers an expired one,
    /// starts the next buffered request, and sends what can be sent.
    private func advance(_ connection: inout ControlChannelConnection, at now: ContinuousClock.Instant) {
        if let request = connection.request {
            if let answer = request.answer {
                connection.request = nil
                connection.queue(answer)
            } else if now >= request.deadline {
                connection.request = nil
                switch request.expire() {
                case .answered(let answer): connection.queue(answer)
                case .withdrawn: connection.queue(Self.failure(.notTaken(within: requestTimeout), to: request.line))
                case .running: connection.queue(Self.failure(.unanswered(within: requestTimeout), to: request.line))
                }
            }
        }
        // The answer goes before the next request starts, which keeps the answers in order and
        // a client that does not read to one answer's worth of buffer.
        connection.flush(at: now)
        if connection.request == nil, !connection.hasOutput, !connection.closing {
            if let line = connection.nextLine() {
                connection.request = start(line, at: now)
            } else if connection.lineTooLong {
                connection.queue(Self.failure(.refused("request line longer than \(Self.maximumLineLength) bytes"), to: nil),
                                 thenClose: true)
                connection.flush(at: now)
            }
        }
    }

    /// Hands `line` to the card; the card's thread runs it unless the deadline withdrew it first.
    private func start(_ line: String, at now: ContinuousClock.Instant) -> ControlChannelPendingRequest {
        let request = ControlChannelPendingRequest(line: line, deadline: now + requestTimeout)
        let respond = respond
        let wake = serving.wake
        executor {
            guard request.begin() else { return }
            request.finish(respond(line))
            wake.signal()
        }
        return request
    }

    /// Reads what the client sent (the channel asks only when it will act on it).
    private func read(_ connection: inout ControlChannelConnection) {
        do throws(SystemCallError) {
            connection.received(try POSIX.read(connection.fd, upTo: 4096))
        } catch {
            if error.code != EAGAIN && error.code != EWOULDBLOCK { connection.received([]) }
        }
    }

    /// A failure answer to `line`, with its tag if it has one.
    static func failure(_ error: ControlChannelError, to line: String?) -> String {
        let tag = line.flatMap { try? JSONValue(parsing: $0) }?["tag"]
        return error.answer(tag: tag).text
    }
}
