import CTAPClient
import FIDOWire

/// Why a probe stopped before the battery's end: the card is not a FIDO card, it left the reader,
/// or the reader failed. Nothing is written when a probe stops.
public enum ProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SELECT of the FIDO applet did not answer `9000`: the card has no FIDO applet.
    case notFIDO(statusWord: UInt16)
    /// The card left the reader (or stopped answering) during a probe entry (entry 0: the SELECT
    /// and getInfo before the first).
    case cardRemoved(during: String, entry: Int, of: Int, reason: String)
    /// The reader or the resource manager failed during a probe entry.
    case transport(during: String, entry: Int, of: Int, reason: String)
    /// The writing part stopped before any PIN entry: the card refused authenticatorReset, or
    /// still had a PIN after it, so the probe's PIN entries could only spend the user's retries.
    case writesStopped(entry: Int, of: Int, reason: String)

    public var description: String {
        switch self {
        case .notFIDO(let word):
            let meaning = StatusWord(rawValue: word).meaning.map { " (\($0))" } ?? ""
            return "not a FIDO card: SELECT of the FIDO applet (AID \(Hex.string(NFCBinding.fidoAID))) answered \(Hex.word(word))\(meaning)"
        case .cardRemoved(let probe, let entry, let total, let reason):
            return "the card left the reader \(Self.when(entry, total, probe)): \(reason); no fingerprint written"
        case .transport(let probe, let entry, let total, let reason):
            return "the reader failed \(Self.when(entry, total, probe)): \(reason); no fingerprint written"
        case .writesStopped(let entry, let total, let reason):
            return "the writing part stopped at entry \(entry) of \(total), before any PIN entry: \(reason); "
                + "the card is unchanged apart from the reset; no fingerprint written"
        }
    }

    /// `during entry 12 of 174 (getInfo)`, or `before the battery began (getInfo)` for entry 0.
    private static func when(_ entry: Int, _ total: Int, _ probe: String) -> String {
        entry == 0 ? "before the battery began (\(probe))" : "during entry \(entry) of \(total) (\(probe))"
    }
}

/// A transport failure inside one entry, or the writing part's stop rule, before the runner
/// names the entry.
struct ProbeInterruption: Error {
    let removed: Bool
    let reason: String
    /// The stop rule (``ProbeError/writesStopped(entry:of:reason:)``), not a transport failure.
    var writesStopped = false

    init(_ error: CardTransportError) {
        switch error {
        case .cardRemoved(let reason): removed = true; self.reason = reason
        case .failed(let reason), .unsupported(let reason), .timedOut(let reason): removed = false; self.reason = reason
        case .cancelled: removed = false; reason = "the probe was cancelled"
        }
    }

    init(removed: Bool, reason: String) {
        self.removed = removed
        self.reason = reason
    }

    /// The writing part stops here: the card could lose its PIN retries to what follows.
    init(writesStopped reason: String) {
        removed = false
        self.reason = reason
        writesStopped = true
    }
}
