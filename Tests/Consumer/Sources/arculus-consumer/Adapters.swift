import ArculusCard
import ArculusSDK
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

/// The in-process card as the SDK's connector: each operation's `connect` is a tap.
///
/// `@unchecked Sendable`: the SDK uses the connector from its one card queue, and the consumer
/// reads the card only between operations.
final class VirtualCardConnector: CardConnector, @unchecked Sendable {
    let card: VirtualCard

    init(_ card: VirtualCard) {
        self.card = card
    }

    func connect() throws(CardTransportError) -> any CardTransport {
        card.powerCycle()
        return VirtualCardTransport(card)
    }
}
