import ArculusCard
import CTAPClient

/// The in-process emulated card as a synchronous ``CardTransport`` for the CTAP client or the
/// probe, used from one thread at a time: each APDU goes to ``VirtualCard/transmit(_:)``, and a
/// card that left the field (it answers nothing) is ``CardTransportError/cardRemoved(_:)``. The
/// SDK's own connector is ``VirtualCardConnector``.
public struct VirtualCardTransport: CardTransport {
    public let card: VirtualCard

    public init(card: VirtualCard) {
        self.card = card
    }

    public func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let answer = card.transmit(apdu)
        guard !answer.isEmpty else { throw .cardRemoved("the card left the field") }
        return answer
    }

    public func powerCycle() throws(CardTransportError) {
        card.powerCycle()
    }
}
