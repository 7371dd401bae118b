import CTAP2
import POSIXSupport
import Synchronization

/// The waiter of a card in use: it blocks the calling thread until the card's clock reaches the
/// deadline, and ``interrupt()`` — from any thread, even a signal handler — ends every wait at
/// once, that one and each after it (a card whose waiter was interrupted answers without waiting).
/// ``wake()`` makes a wait look again at what it waits for, as when another thread answered the
/// person's prompt.
public final class SystemCardWaiter: CardWaiter, @unchecked Sendable {
    // Sendability: the state other threads touch is an atomic and the pipe.
    private let pipe = WakePipe()
    private let interrupted = Atomic<Bool>(false)

    /// A waiter that waits in full until it is interrupted.
    public init() {}

    /// Ends the wait going on and every later one at once. Async-signal-safe.
    public func interrupt() {
        interrupted.store(true, ordering: .sequentiallyConsistent)
        pipe.signal()
    }

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { interrupted.load(ordering: .sequentiallyConsistent) }

    /// Makes the wait going on check again whether it is settled. Async-signal-safe.
    public func wake() {
        pipe.signal()
    }

    public func wait(until deadline: CardInstant, for purpose: CardWaitPurpose, clock: () -> CardInstant,
                     unless isSettled: () -> Bool) -> CardWaitOutcome {
        while true {
            if isInterrupted { return .interrupted }
            if isSettled() { return .settled }
            let left = clock().duration(to: deadline)
            if left <= .zero { return .reached }
            pipe.wait(upTo: left)
        }
    }
}
