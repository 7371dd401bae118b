#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusSDK
import CTAPClient
import PCSC

/// `sdk --reader NAME`: the card on a PC/SC reader. Each `connect` opens a PC/SC context and a
/// shared connection inside a transaction (so no other application's APDUs land between the
/// pieces of a chained command), ended when the operation drops the transport.
struct ReaderConnector: CardConnector {
    let reader: String
    /// How long to wait for a card, in seconds.
    let wait: Double

    func connect() throws(CardTransportError) -> any CardTransport {
        do {
            let context = try PCSCContext()
            if wait > 0 {
                guard try context.waitForCardPresent(reader: reader, timeout: .milliseconds(Int64(wait * 1000))) else {
                    throw CardTransportError.cardRemoved("no card on '\(reader)' after \(wait) s")
                }
            }
            // Another application's exclusive connection or transaction: wait for it a little,
            // as PC/SC clients do, before calling the card unavailable.
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .milliseconds(Int64(max(wait, 2) * 1000)))
            func attempt() throws(PCSCError) -> PCSCCard? {
                do {
                    return try context.connect(reader: reader)
                } catch where error.code == .sharingViolation {
                    return nil
                }
            }
            var connected = try attempt()
            while connected == nil && clock.now < deadline {
                usleep(50_000)
                connected = try attempt()
            }
            guard let card = connected else { throw PCSCError(function: "SCardConnect", code: .sharingViolation) }
            try card.beginTransaction()
            return PCSCCardTransport(card: card, endsTransaction: true)
        } catch let error as PCSCError {
            throw PCSCCardTransport.transportError(error, reader: reader)
        } catch let error as CardTransportError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }
}
