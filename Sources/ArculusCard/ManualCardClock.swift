import CTAP2

/// A clock that a test moves, and the waiter that goes with it: a wait for a deadline moves the
/// clock there at once, so a test of the card's timing never sleeps and measures exactly what
/// the card waited for. `VirtualCard(clock: clock.read)` and `card.waiter = clock` put a card on
/// it (or ``VirtualCard/use(_:)``).
///
/// ``whileWaiting`` runs at the start of every wait (and after each step of ``waitStep``, when the
/// test set one): a test plays the person there, e.g. answers a prompt.
public final class ManualCardClock: CardWaiter {
    /// Now, on this clock.
    public var now: CardInstant
    /// How far each wait moved the clock, in order (0 for a wait that was settled before its time).
    public private(set) var waits: [Duration] = []
    /// Runs at the start of each wait, with the clock: where a test acts while the card waits.
    public var whileWaiting: ((ManualCardClock) -> Void)?
    /// With a step, a wait moves the clock one step at a time, running ``whileWaiting`` and
    /// checking whether it is settled after each; without one it jumps to the deadline.
    public var waitStep: Duration?

    /// A clock reading `now`.
    public init(now: CardInstant = .seconds(1_000)) {
        self.now = now
    }

    /// The clock's reading (what a card's `clock` closure returns).
    public func read() -> CardInstant { now }

    /// Moves the clock on by `duration`.
    public func advance(by duration: Duration) {
        now = now.advanced(by: duration)
    }

    /// The whole time the card waited on this clock.
    public var waited: Duration { waits.reduce(.zero, +) }

    public func wait(until deadline: CardInstant, for purpose: CardWaitPurpose, clock: () -> CardInstant,
                     unless isSettled: () -> Bool) -> CardWaitOutcome {
        let start = now
        defer { waits.append(start.duration(to: max(start, now))) }
        while true {
            whileWaiting?(self)
            if isSettled() { return .settled }
            guard now < deadline else { return .reached }
            now = waitStep.map { min(deadline, now.advanced(by: $0)) } ?? deadline
            if now >= deadline { return isSettled() ? .settled : .reached }
        }
    }
}
