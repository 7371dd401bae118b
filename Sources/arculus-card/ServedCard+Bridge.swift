import ArculusCard
import VirtualReader

extension ServedCard {
    /// The emulated card, on `bridge`: it leaves the field through the bridge (taken off the
    /// reader for as long as it asked) and waits through it, so that SIGINT/SIGTERM, a tap or a
    /// control request is never held up by the card's simulated work, a delay fault or a wait for
    /// the person.
    func attach(to bridge: VPCDBridge) {
        guard let card = emulated else { return }
        card.control.onLeaveField = { away in bridge.removeAndTap(after: away) }
        card.waiter = bridge.cardWaiter
        card.onPresencePrompt = { pending in
            let what = pending.prompt.command.name + (pending.prompt.rpId.map { " for \(DisplayText.escaped($0))" } ?? "")
            Console.error("presence: \(what) waits for the user: arculus-card ctl presence --approve \(pending.id) (or --decline)")
        }
    }
}
