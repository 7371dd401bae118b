import Synchronization

/// The thread of a server that polls its sockets, and how the server stops: ``start(_:)`` runs
/// the serving loop on a thread of its own, once; ``stop(closing:)`` asks the loop to end, wakes
/// it (``wake``) and waits for its thread, or, when it never ran, closes the server itself;
/// ``close(_:)`` closes the server's descriptors exactly once, whoever comes first (the loop as
/// it ends, a stop, or the owner's deinit). The control channel and the card page's server.
public final class ServingThread: @unchecked Sendable {
    // Sendability: `thread` is touched only by start and stop, the owner's calls; `closed` by the
    // serving thread as it ends, or by stop or the owner's deinit when no thread runs, never by
    // both; `stopRequested` is atomic.

    /// The pipe the serving loop polls besides its sockets: a stop, and whatever else has work
    /// for the loop, signals it.
    public let wake = WakePipe()
    private let stopRequested = Atomic<Bool>(false)
    private var thread: POSIXThread?
    private var closed = false

    public init() {}

    /// Whether ``stop(closing:)`` was called: the serving loop returns once it sees this.
    public var isStopping: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    /// Runs `serve` on a thread of its own, unless one already runs or the server is closed.
    public func start(_ serve: @escaping @Sendable () -> Void) {
        guard thread == nil, !closed else { return }
        thread = try? POSIXThread.start(serve)
    }

    /// Stops the loop and waits for its thread; with no thread, runs `close` (once). Idempotent.
    public func stop(closing close: () -> Void) {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        if let thread {
            self.thread = nil
            thread.join()
        } else {
            self.close(close)
        }
    }

    /// For the owner's deinit: runs `close` (once) unless a thread runs, which closes as it ends.
    public func closeUnlessRunning(_ close: () -> Void) {
        if thread == nil { self.close(close) }
    }

    /// Runs `close` the first time only.
    public func close(_ close: () -> Void) {
        guard !closed else { return }
        closed = true
        close()
    }
}
