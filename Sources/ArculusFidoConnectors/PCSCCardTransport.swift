import CTAPClient
import PCSC

/// The host-side CTAP2 client's view of a card on a PC/SC reader. PC/SC codes that mean "no
/// card any more" become ``CardTransportError/cardRemoved(_:)``, the SDK's Tag Lost.
///
/// Not thread-safe (a PC/SC handle): ``PCSCCardConnector`` runs it on a queue of its own.
public final class PCSCCardTransport: CardTransport {
    public let card: PCSCCard
    /// Whether dropping the transport ends the card's transaction (the SDK's connections own one).
    private let endsTransaction: Bool

    /// A transport over `card`; with `endsTransaction`, dropping it ends the card's transaction.
    public init(card: PCSCCard, endsTransaction: Bool = false) {
        self.card = card
        self.endsTransaction = endsTransaction
    }

    deinit {
        if endsTransaction { try? card.endTransaction() }
    }

    public func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        do {
            return try card.transmit(apdu)
        } catch {
            throw Self.transportError(error, reader: card.reader)
        }
    }

    public func powerCycle() throws(CardTransportError) {
        do {
            try card.reconnect(disposition: .unpower)
        } catch {
            throw Self.transportError(error, reader: card.reader)
        }
    }

    /// A PC/SC failure in the SDK's terms, with what to do about it.
    public static func transportError(_ error: PCSCError, reader: String) -> CardTransportError {
        switch error.code {
        case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .unresponsiveCard:
            return .cardRemoved("\(error.code.name) on '\(reader)'")
        case .unknownReader:
            let known = (try? PCSCContext().readers())?.joined(separator: "', '") ?? ""
            return .failed("pcscd has no reader '\(reader)'" + (known.isEmpty ? "" : "; it has '\(known)'"))
        case .noService, .serviceStopped:
            return .failed("pcscd is not running (\(error.code.name)); start it (e.g. 'pcscd') and retry")
        case .sharingViolation:
            return .failed("another application holds the card on '\(reader)' exclusively (\(error.code.name)); close it and retry")
        default:
            return .failed("\(error)")
        }
    }
}
