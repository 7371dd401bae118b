import ArculusCard
import POSIXSupport

extension VPCDBridge {
    /// The waiter a card served by this bridge waits with (`card.waiter = bridge.cardWaiter`): a
    /// ``stop()``, a ``removeAndTap(after:)`` or a ``takeOffReader()`` ends any wait of the card
    /// at once (its simulated work, a delay fault, the person's answer) — the card answers then,
    /// and the bridge does what it was asked — so a signal always stops a served card within a
    /// moment. While the card waits for the person, the bridge also runs other threads' work
    /// (control requests, one of which brings the answer); while it waits out its own work it is
    /// busy, and they wait as they wait for any command.
    public var cardWaiter: any CardWaiter { BridgeCardWaiter(bridge: self) }
}

/// ``VPCDBridge/cardWaiter``.
final class BridgeCardWaiter: CardWaiter {
    private weak var bridge: VPCDBridge?

    init(bridge: VPCDBridge) {
        self.bridge = bridge
    }

    func wait(until deadline: CardInstant, for purpose: CardWaitPurpose, clock: () -> CardInstant,
              unless isSettled: () -> Bool) -> CardWaitOutcome {
        while true {
            // A card that outlives its bridge has no reader to wait on.
            guard let bridge else { return .interrupted }
            if purpose == .person { bridge.runPendingWorkWhileCardWaits() }
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
