import ArculusCard
import ArculusSDK
import CTAPClient

/// `sdk --card-image FILE`: the in-process card of a card image. Each `connect` is a tap: the
/// card enters the field (powered afresh after the first tap).
///
/// `@unchecked Sendable`: the SDK calls `connect` and uses the transports it returns only on its
/// serial card queue, so the card is never touched from two threads.
final class ImageCardConnector: CardConnector, @unchecked Sendable {
    private let card: VirtualCard
    private let removeAfter: Int?
    private var exchanged = 0
    private var taps = 0
    private var removed = false

    init(card: VirtualCard, removeAfter: Int?) {
        self.card = card
        self.removeAfter = removeAfter
    }

    func connect() throws(CardTransportError) -> any CardTransport {
        guard !removed else { throw .cardRemoved("the card was taken away (--remove-card-after) and not tapped again") }
        if taps > 0 { card.powerCycle() }
        taps += 1
        return Transport(connector: self)
    }

    fileprivate func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard !removed else { throw .cardRemoved("the card left the field") }
        if let removeAfter, exchanged >= removeAfter {
            removed = true
            card.powerOff()
            throw .cardRemoved("the card left the field after \(removeAfter) APDUs (--remove-card-after)")
        }
        exchanged += 1
        return card.transmit(apdu)
    }

    fileprivate func powerCycle() {
        card.powerCycle()
    }

    private struct Transport: CardTransport {
        let connector: ImageCardConnector

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            try connector.transmit(apdu)
        }

        func powerCycle() throws(CardTransportError) {
            connector.powerCycle()
        }
    }
}
