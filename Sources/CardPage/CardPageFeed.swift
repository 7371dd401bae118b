import JSONSupport
import Synchronization
import VirtualReader

/// What one served card tells the card page, from the card's own thread: its trace rows and
/// that its state may have changed. Built to cost nothing while no page watches: with no
/// subscriber, ``observe(_:)`` reads one atomic and returns — no row is built, nothing is
/// copied, nothing is woken.
public final class CardPageFeed: Sendable {
    /// Pages (event streams) watching this card; set by the server.
    let subscribers = Atomic<Int>(0)
    /// Rows built and not yet sent, at most ``maximumQueuedRows`` (the oldest go first).
    private let queued = Mutex<(rows: [TraceRow], dropped: Int)>(([], 0))
    /// The card changed (or may have) since the last state push.
    let changed = Atomic<Bool>(false)
    /// The builder, used only on the card's thread (behind a lock all the same, for Sendable).
    private let builder = Mutex(TraceRowBuilder())
    /// Wakes the server's thread, which polls it.
    let wake = WakePipe()

    /// The most rows held for a page that has not taken them.
    static let maximumQueuedRows = 1000

    /// A feed no page watches yet: give it to the card's reader (its trace hook calls
    /// ``observe(_:)``) and to the ``CardPageServer`` of the card.
    public init() {}

    /// Takes one of the card's reader events (on the card's thread, from the bridge's trace hook).
    public func observe(_ event: VPCDBridge.Event) {
        guard subscribers.load(ordering: .relaxed) > 0 else { return }
        if case .atr = event { return }
        let rows = builder.withLock { $0.rows(for: event) }
        var firstRows = false
        if !rows.isEmpty {
            firstRows = queued.withLock { queue in
                let wasEmpty = queue.rows.isEmpty
                queue.rows += rows
                let excess = queue.rows.count - Self.maximumQueuedRows
                if excess > 0 {
                    queue.rows.removeFirst(excess)
                    queue.dropped += excess
                }
                return wasEmpty
            }
        }
        // The server is woken once for what piles up while it is busy, not once per APDU.
        let firstChange = !changed.exchange(true, ordering: .relaxed)
        if firstRows || firstChange { wake.signal() }
    }

    /// Notes a change the trace does not show (an op the page ran).
    func noteChange() {
        if !changed.exchange(true, ordering: .relaxed) { wake.signal() }
    }

    /// The rows built since the last call, and how many were dropped for want of room.
    func takeRows() -> (rows: [TraceRow], dropped: Int) {
        queued.withLock { queue in
            defer { queue = ([], 0) }
            return queue
        }
    }
}
