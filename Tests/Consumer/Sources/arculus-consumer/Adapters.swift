import ArculusCard
import CTAPClient

/// The in-process card as CTAPClient's transport: what a user of both products writes, since the
/// host side and the card side share nothing but bytes.
final class VirtualCardTransport: CardTransport {
    let card: VirtualCard

    init(_ card: VirtualCard) {
        self.card = card
    }

    func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let response = card.transmit(apdu)
        guard !response.isEmpty else { throw .cardRemoved("the card left the field") }
        return response
    }

    func powerCycle() throws(CardTransportError) {
        card.powerCycle()
    }
}
