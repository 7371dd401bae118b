import ArculusCard
import POSIXSupport

extension VPCDBridge {
    /// The waiter a card served by this bridge waits with (`card.waiter = bridge.cardWaiter`):
    /// while the card waits for a deadline (its simulated work, a delay fault, the person's
    /// answer) the bridge still runs other threads' work (control requests) on its thread, and a
    /// ``stop()``, a ``removeAndTap(after:)`` or a ``takeOffReader()`` ends the wait at once —
    /// the card answers then, and the bridge does what it was asked. So a signal always stops a
    /// served card within a moment, whatever it was waiting for.
    public var cardWaiter: any CardWaiter { BridgeCardWaiter(bridge: self) }
}

/// ``VPCDBridge/cardWaiter``.
final class BridgeCardWaiter: CardWaiter {
    private weak var bridge: VPCDBridge?

    init(bridge: VPCDBridge) {
        self.bridge = bridge
    }

    func wait(until deadline: CardInstant, clock: () -> CardInstant, unless isSettled: () -> Bool) -> CardWaitOutcome {
        while true {
            // A card that outlives its bridge has no reader to wait on.
            guard let bridge else { return .interrupted }
            bridge.runPendingWorkWhileCardWaits()
            if bridge.interruptsCardWaits {
                // Left readable, so that the bridge loop sees the request as soon as the card answers.
                bridge.wakeUp()
                return .interrupted
            }
            if isSettled() { return .settled }
            let left = clock().duration(to: deadline)
            if left <= .zero { return .reached }
            bridge.waitForWake(upTo: left)
        }
    }
}
