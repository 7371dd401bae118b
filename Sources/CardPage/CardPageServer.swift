#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONSupport
import POSIXSupport
import VirtualReader

/// The card page's web server: a small HTTP/1.1 server on a loopback TCP port, serving one page
/// per card and what the page asks for (see ``CardPageRoutes``) to a browser on the same machine.
///
/// Safe by default: it listens on 127.0.0.1 only; every request must pass ``CardPageAccess``
/// (the page's own Host and Origin, the per-run secret); what a page may change goes through the
/// control operations `ctl` uses, on the card's thread; nothing secret is ever sent (trace rows
/// are masked as `serve --verbose` masks them, answers lose their key members).
///
/// Bounded like the control channel: at most ``maximumConnections`` connections, none that
/// would leave fewer than ``reservedDescriptors`` free file descriptors (a refused one gets a
/// 503 and is closed), a back-off when `accept` runs out of descriptors, requests of fixed
/// maximum size that must arrive within ``requestTimeout``, non-blocking writes, and event
/// streams dropped when their client falls behind.
///
/// Live without polling: each page holds one server-sent event stream; trace rows are pushed as
/// the card's messages end, and the card's state at most ten times a second (and every
/// ``heartbeat`` while nothing happens, every ``askingPushInterval`` while the card asks the
/// person about each test of presence). With no page open, the card pays one atomic load per
/// reader event (``CardPageFeed``).
public final class CardPageServer: @unchecked Sendable {
    // Sendability: the listener is set in init and closed once (``ServingThread``); the
    // connections and card states are the server thread's alone; the feeds are Sendable.

    /// The most connections at once (each open page holds one event stream).
    public static let maximumConnections = 32
    /// File descriptors a new connection must leave free.
    public static let reservedDescriptors = 16
    /// How long a client may take to send its request.
    public static let requestTimeout = Duration.seconds(10)
    /// The least time between two state pushes to a page.
    public static let statePushInterval = Duration.milliseconds(100)
    /// How often the state is pushed while nothing changes (and the stream shown alive).
    public static let heartbeat = Duration.seconds(5)
    /// How often the state is pushed while the card's presence mode is `ask`: a prompt the card
    /// starts to wait on shows within this (plus the card's answer) even when nothing else tells
    /// the page (a host held through the wait sends no APDU), and its waiting seconds count up.
    public static let askingPushInterval = Duration.milliseconds(250)
    /// The most trace rows a page is sent in a second.
    public static let maximumRowsPerSecond = 200
    /// Rows kept to send a page that opens later.
    static let historyLength = 200

    /// The address the page is at, `127.0.0.1:PORT`.
    public let authority: String
    public let access: CardPageAccess
    /// The page of each card, in reader order.
    public let cards: [CardPageCard]
    /// Each card's feed, which its reader's events go to.
    public let feeds: [CardPageFeed]
    /// How long an op may wait for the card.
    public let workTimeout: Duration

    let serving = ServingThread()
    private let listener: Int32
    /// The server thread's view of each card.
    var states: [CardState]

    /// The address of card `index`'s page (0-based), secret included.
    public func address(ofCard index: Int) -> String {
        "http://\(authority)/" + (index == 0 ? "" : "card/\(index + 1)/") + "?t=\(access.secret)"
    }

    /// Listens on 127.0.0.1:`port` (0: a free port the system picks) for the pages of `cards`,
    /// each fed by the feed at its index in `feeds`. ``start()`` serves.
    public init(port: UInt16, cards: [CardPageCard], feeds: [CardPageFeed], workTimeout: Duration = .seconds(10),
                secret: String? = nil) throws(SystemCallError) {
        precondition(cards.count == feeds.count, "one feed per card")
        let fd = POSIX.streamSocket(AF_INET)
        guard fd >= 0 else { throw SystemCallError("socket") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        do {
            try POSIX.bind(fd, to: address, call: "bind to 127.0.0.1:\(port)")
            try POSIX.listen(fd)
        } catch {
            ControlChannelSocket.closeSocket(fd)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        let authority = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        self.authority = authority
        access = secret.map { CardPageAccess(authority: authority, secret: $0) } ?? CardPageAccess(authority: authority)
        self.cards = cards
        self.workTimeout = workTimeout
        self.feeds = feeds
        states = Array(repeating: CardState(), count: cards.count)
    }

    deinit {
        serving.closeUnlessRunning(closeListener)
    }

    /// Serves on a thread of its own until ``stop()``.
    public func start() {
        serving.start { self.serve() }
    }

    /// Stops serving and closes every connection; waits for the server's thread. Idempotent.
    public func stop() {
        serving.stop(closing: closeListener)
    }

    private func closeListener() {
        ControlChannelSocket.closeSocket(listener)
    }

    // MARK: - Serving

    /// The server thread's view of one card: its pending state read, when it last pushed, and
    /// the rows a page that opens now is sent first.
    struct CardState {
        var snapshot: ControlChannelPendingRequest?
        var lastPush: ContinuousClock.Instant?
        var lastState: String?
        /// The last state said the card asks the person about each test of presence.
        var asking = false
        var history: [TraceRow] = []
        /// This second's rows sent so far, for the rate limit.
        var rowWindow: (start: ContinuousClock.Instant, sent: Int)?
    }

    private func serve() {
        var connections: [HTTPConnection] = []
        var admission = ConnectionAdmission(maximumConnections: Self.maximumConnections,
                                            reservedDescriptors: Self.reservedDescriptors)
        let clock = ContinuousClock()
        let viewers = cards.map { ControlChannelHandler(card: $0.handler.card, bridge: $0.handler.bridge) }
        defer {
            for connection in connections { ControlChannelSocket.closeSocket(connection.fd) }
            for index in feeds.indices { feeds[index].subscribers.store(0, ordering: .relaxed) }
            serving.close(closeListener)
        }
        while !serving.isStopping {
            let now = clock.now
            for index in connections.indices { advance(&connections[index], at: now) }
            for index in cards.indices { push(card: index, &states[index], viewer: viewers[index], to: &connections, at: now) }
            for index in connections.indices where connections[index].hasOutput { connections[index].flush(at: now) }
            for index in connections.indices { connections[index].linger(at: now) }
            connections.removeAll { connection in
                let stalled = connection.stalledSince.map { now - $0 >= workTimeout } ?? false
                let late: Bool = if case .reading = connection.phase { now - connection.openedAt >= Self.requestTimeout } else { false }
                guard connection.isFinished(at: now) || stalled || late || connection.backlog > HTTPConnection.maximumStreamBacklog else {
                    return false
                }
                if case .streaming(let card) = connection.phase { feeds[card].subscribers.subtract(1, ordering: .relaxed) }
                ControlChannelSocket.closeSocket(connection.fd)
                return true
            }

            let acceptNow = admission.isAccepting(at: now)
            var fds = [pollfd(fd: serving.wake.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: acceptNow ? listener : -1, events: Int16(POLLIN), revents: 0)]
            fds += feeds.map { pollfd(fd: $0.wake.readEnd, events: Int16(POLLIN), revents: 0) }
            let first = fds.count
            for connection in connections {
                var events: Int16 = connection.hasOutput ? Int16(POLLOUT) : 0
                switch connection.phase {
                case .reading, .streaming: events |= Int16(POLLIN)
                case .answered: if connection.lingeringSince != nil { events |= Int16(POLLIN) }
                case .waiting: break
                }
                fds.append(pollfd(fd: events == 0 ? -1 : connection.fd, events: events, revents: 0))
            }
            let timeout = nextDeadline(connections, states, admission).map { max(.zero, clock.now.duration(to: $0)) }
            guard (try? POSIX.poll(&fds, timeout: timeout)) != nil else { return }
            if fds[0].revents != 0 { serving.wake.drain() }
            for (index, feed) in feeds.enumerated() where fds[2 + index].revents != 0 { feed.wake.drain() }
            if serving.isStopping { return }

            let later = clock.now
            for index in connections.indices {
                let events = fds[first + index].revents
                if events & Int16(POLLOUT | POLLERR | POLLHUP) != 0, connections[index].hasOutput { connections[index].flush(at: later) }
                if events & Int16(POLLIN | POLLERR | POLLHUP) != 0 { read(&connections[index], at: later) }
            }
            if fds[1].revents != 0, let fd = admission.accept(on: listener, at: later) {
                if let refusal = admission.refusal(of: fd, open: connections.count, what: "card page") {
                    _ = ControlChannelSocket.sendSome(fd, ArraySlice(HTTPResponse.error(503, refusal).bytes()))
                    ControlChannelSocket.closeSocket(fd)
                } else {
                    connections.append(HTTPConnection(fd: fd, at: later))
                }
            }
        }
    }

    /// When the loop must wake at the latest: a request's time-out, card work's deadline, a
    /// state push that waits for its interval, the heartbeat, the accept back-off.
    private func nextDeadline(_ connections: [HTTPConnection], _ states: [CardState],
                              _ admission: ConnectionAdmission) -> ContinuousClock.Instant? {
        var deadlines: [ContinuousClock.Instant] = []
        for connection in connections {
            switch connection.phase {
            case .reading: deadlines.append(connection.openedAt + Self.requestTimeout)
            case .waiting(let work, _): deadlines.append(work.deadline)
            case .answered, .streaming: break
            }
            if let stalled = connection.stalledSince { deadlines.append(stalled + workTimeout) }
            if let lingering = connection.lingeringSince { deadlines.append(lingering + HTTPConnection.linger) }
        }
        for (index, state) in states.enumerated() where feeds[index].subscribers.load(ordering: .relaxed) > 0 {
            if let snapshot = state.snapshot { deadlines.append(snapshot.deadline) }
            guard let last = state.lastPush else { continue }
            deadlines.append(last + pushInterval(of: index, state))
        }
        if let resume = admission.resumesAt { deadlines.append(resume) }
        return deadlines.min()
    }

    /// Reads what a client sent, and acts on a whole request.
    private func read(_ connection: inout HTTPConnection, at now: ContinuousClock.Instant) {
        do throws(SystemCallError) {
            connection.received(try POSIX.read(connection.fd, upTo: 16 * 1024))
        } catch {
            if error.code != EAGAIN && error.code != EWOULDBLOCK { connection.received([]) }
        }
        guard case .reading = connection.phase, !connection.failed else { return }
        switch HTTPRequest.parse(connection.input) {
        case .incomplete: break
        case .refused(let response): connection.answer(response)
        case .request(let request, _): handle(request, on: &connection, at: now)
        }
    }

    /// Moves a connection waiting for the card on: its answer, or its time-out.
    private func advance(_ connection: inout HTTPConnection, at now: ContinuousClock.Instant) {
        guard case .waiting(let work, let finish) = connection.phase else { return }
        if let answer = work.answer {
            connection.answer(finish(answer))
        } else if now >= work.deadline {
            switch work.expire() {
            case .answered(let answer): connection.answer(finish(answer))
            case .withdrawn: connection.answer(.error(503, ControlChannelError.notTaken(within: workTimeout).description))
            case .running: connection.answer(.error(503, ControlChannelError.unanswered(within: workTimeout).description))
            }
        }
    }

    /// Hands `work` to card `index`'s thread; its answer comes back through the wake pipe.
    func run(on index: Int, at now: ContinuousClock.Instant, _ work: @escaping @Sendable () -> String) -> ControlChannelPendingRequest {
        let pending = ControlChannelPendingRequest(line: "", deadline: now + workTimeout)
        let wake = serving.wake
        cards[index].executor {
            guard pending.begin() else { return }
            pending.finish(work())
            wake.signal()
        }
        return pending
    }

    // MARK: - Pushing to pages

    /// Sends card `index`'s new rows and, when due, its state to the pages watching it.
    private func push(card index: Int, _ state: inout CardState, viewer: ControlChannelHandler,
                      to connections: inout [HTTPConnection], at now: ContinuousClock.Instant) {
        let feed = feeds[index]
        var (rows, dropped) = feed.takeRows()
        // A page is sent at most ``maximumRowsPerSecond`` rows a second (a person reads far
        // fewer); the others are counted in a `dropped` event.
        if state.rowWindow.map({ now - $0.start >= .seconds(1) }) ?? true { state.rowWindow = (now, 0) }
        let room = max(0, Self.maximumRowsPerSecond - (state.rowWindow?.sent ?? 0))
        var skipped = 0
        if rows.count > room {
            skipped = rows.count - room
            rows.removeFirst(skipped)
        }
        state.rowWindow?.sent += rows.count
        if !rows.isEmpty || dropped > 0 || skipped > 0 {
            state.history = Array((state.history + rows).suffix(Self.historyLength))
            var events: [UInt8] = []
            if dropped + skipped > 0 { events += Self.event("dropped", .object(["events": .int(dropped), "rows": .int(skipped)])) }
            for row in rows { events += Self.event("trace", row.json) }
            for connection in connections.indices where connections[connection].isStreaming(card: index) {
                connections[connection].queue(events)
            }
        }
        guard feed.subscribers.load(ordering: .relaxed) > 0 else { return }
        if let snapshot = state.snapshot {
            var text = snapshot.answer
            if text == nil, now >= snapshot.deadline, case .answered(let late) = snapshot.expire() { text = late }
            if let text {
                state.lastState = text
                state.asking = CardPageCard.asksForPresence(text)
                let event = Self.event("state", text: text)
                for connection in connections.indices where connections[connection].isStreaming(card: index) {
                    connections[connection].queue(event)
                }
            }
            if text != nil || now >= snapshot.deadline { state.snapshot = nil }
            return
        }
        let due = state.lastPush.map { now - $0 >= pushInterval(of: index, state) } ?? true
        guard due else { return }
        feed.changed.store(false, ordering: .relaxed)
        state.lastPush = now
        state.snapshot = run(on: index, at: now) { CardPageCard.snapshot(viewer, card: index) }
    }

    /// How long after its last state push card `index`'s next is due: soon after a change,
    /// often while the card asks about presence, else at the heartbeat.
    private func pushInterval(of index: Int, _ state: CardState) -> Duration {
        if feeds[index].changed.load(ordering: .relaxed) { return Self.statePushInterval }
        return state.asking ? Self.askingPushInterval : Self.heartbeat
    }

    /// One server-sent event.
    static func event(_ name: String, _ value: JSONValue) -> [UInt8] {
        event(name, text: value.text)
    }

    static func event(_ name: String, text: String) -> [UInt8] {
        Array("event: \(name)\ndata: \(text)\n\n".utf8)
    }
}

extension HTTPConnection {
    func isStreaming(card index: Int) -> Bool {
        if case .streaming(let card) = phase { return card == index }
        return false
    }
}
