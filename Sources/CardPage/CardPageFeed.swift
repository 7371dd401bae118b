import POSIXSupport
import Synchronization
import POSIXSupport
import VirtualReader

/// What one served card tells the card page, from the card's own thread: its reader events, for
/// the page's trace rows and to say its state may have changed. Built to cost the card as little
/// as can be: with no page watching, ``observe(_:)`` reads one atomic and returns; with one, it
/// queues the event (the APDUs' bytes) and the server's thread builds the rows, so decoding,
/// masking and sending never hold up the card.
public final class CardPageFeed: Sendable {
    /// Pages (event streams) watching this card; set by the server.
    let subscribers = Atomic<Int>(0)
    /// Events not yet made rows, at most ``maximumQueuedEvents`` (past that, new ones are
    /// counted and dropped until the server catches up).
    private let queued = Mutex<(events: [VPCDBridge.Event], dropped: Int)>(([], 0))
    /// The card changed (or may have) since the last state push.
    let changed = Atomic<Bool>(false)
    /// The row builder, used only on the server's thread.
    private let builder = Mutex(TraceRowBuilder())
    /// Wakes the server's thread, which polls it.
    let wake = WakePipe()

    /// The most events held for the server.
    static let maximumQueuedEvents = 4096

    /// A feed no page watches yet: give it to the card's reader (its trace hook calls
    /// ``observe(_:)``) and to the ``CardPageServer`` of the card.
    public init() {}

    /// Takes one of the card's reader events (on the card's thread, from the bridge's trace hook).
    public func observe(_ event: VPCDBridge.Event) {
        guard subscribers.load(ordering: .relaxed) > 0 else { return }
        switch event {
        case .atr, .waitingForDriver, .stopped: return
        default: break
        }
        let first = queued.withLock { queue in
            guard queue.events.count < Self.maximumQueuedEvents else {
                queue.dropped += 1
                return false
            }
            queue.events.append(event)
            return queue.events.count == 1
        }
        // The server is woken once for what piles up while it is busy, not once per APDU.
        let firstChange = !changed.exchange(true, ordering: .relaxed)
        if first || firstChange { wake.signal() }
    }

    /// Notes a change the trace does not show (an op the page ran).
    func noteChange() {
        if !changed.exchange(true, ordering: .relaxed) { wake.signal() }
    }

    /// The rows the events since the last call make (on the server's thread), and how many
    /// events were dropped for want of room (the rows they would have made are lost; the
    /// builder starts afresh after them).
    func takeRows() -> (rows: [TraceRow], dropped: Int) {
        let (events, dropped) = queued.withLock { queue in
            defer { queue = ([], 0) }
            return queue
        }
        return builder.withLock { builder in
            if dropped > 0 { builder.restart() }
            return (events.flatMap { builder.rows(for: $0) }, dropped)
        }
    }
}
