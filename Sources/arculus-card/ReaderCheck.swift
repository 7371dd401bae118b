#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PCSC

/// What PC/SC says of a card `serve` put on a vpcd reader, asked through libpcsclite as an
/// application asks: the card is on the reader for a script only once an application would find
/// it there (``ServeReadiness``).
enum ReaderCheck {
    /// The answer of ``confirm(reader:timeout:)``.
    enum Outcome: Equatable {
        /// pcscd lists the card in the reader and a shared connection to it was made (and left,
        /// the card untouched: no APDU, no reset).
        case present
        /// No pcscd to ask (`SCardEstablishContext` failed): the driver may belong to a pcscd
        /// this process cannot reach (another host, another namespace).
        case noPCSC
        /// pcscd has no reader of that name.
        case unknownReader
        /// pcscd did not show the card, or no connection could be made, within the time.
        case notShown(String)
    }

    /// Waits, at most `timeout`, until `reader` holds a card that an application can connect to;
    /// gives up (``Outcome/notShown(_:)``) as soon as `stillOnReader` says the card has left (a
    /// connection made while pcscd has not yet seen a removal confuses its polling).
    static func confirm(reader: String, timeout: Duration, stillOnReader: () -> Bool) -> Outcome {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let context: PCSCContext
        do {
            context = try PCSCContext()
        } catch {
            return .noPCSC
        }
        do {
            guard try context.waitForCardPresent(reader: reader, timeout: timeout) else {
                return .notShown("pcscd never listed a card in \(reader)")
            }
        } catch where error.code == .unknownReader {
            return .unknownReader
        } catch {
            return .notShown("\(error)")
        }
        // pcscd lists a card while its polling thread may still hold the reader; an application's
        // connection made then fails. Present means an application can connect.
        let passing: [PCSCError.Code] = [.unpoweredCard, .resetCard, .sharingViolation, .noSmartcard, .removedCard]
        while true {
            do {
                let card = try context.connect(reader: reader)
                try card.disconnect(disposition: .leave)
                return .present
            } catch {
                guard passing.contains(error.code), clock.now < deadline, stillOnReader() else { return .notShown("\(error)") }
                usleep(20_000)
            }
        }
    }

    /// Whether `reader` holds a card right now; nil when pcscd cannot say (none reachable, no
    /// such reader).
    static func holdsCard(_ reader: String) -> Bool? {
        guard let context = try? PCSCContext(), let status = try? context.status(ofReaders: [reader]).first,
              !status.isUnknown else { return nil }
        return status.isCardPresent
    }

    /// Asks pcscd for its readers and forgets the answer: where pcscd is started on demand
    /// (systemd's socket activation), this starts it, and with it the vpcd driver `serve` waits for.
    static func wakePCSC() {
        _ = try? PCSCContext().readers()
    }
}
