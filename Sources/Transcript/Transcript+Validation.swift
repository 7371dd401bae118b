import CBOR
import FIDOWire

extension Transcript {
    /// How much reading a transcript insists on.
    public enum Validation: Sendable {
        /// The text form only: what any fragment of a transcript, or a recording that has no
        /// exchange yet, already is.
        case syntax
        /// Also what a replay, a check and a stand-in need: an `@format` header before the
        /// first entry, and what ``Transcript/validate()`` checks.
        case complete
    }

    /// The reason every transcript to use needs an exchange, for the error that says it has none.
    static let noExchanges = "no exchanges (a transcript needs at least one '>' command and its '<' response)"

    /// Checks what a replay, a check and a stand-in need of a transcript, wherever it came
    /// from:
    /// - at least one exchange (a transcript of headers, or of power events only, tests nothing);
    /// - every recorded response whole: it ends in a status word (ISO 7816-4 §5.6: SW1 `61`–`6F`
    ///   or `90`–`9F`), and a CTAP2 response's CBOR does not end inside a data item. A response
    ///   cut short (a file cut in the middle of its last line) would otherwise be compared by
    ///   its last two bytes as if they were the status word;
    /// - session markers (`# session N recorded …`, see ``sessions``) numbered 2, 3, … in order.
    ///
    /// - Throws: ``TranscriptError`` with the line (none for "no exchanges").
    public func validate() throws(TranscriptError) {
        try validate(requiringFormatHeader: false)
    }

    /// ``validate()``, and for text read from a file also its `@format` header (a transcript
    /// built in memory is this build's format whatever its headers say; ``text`` adds the header).
    func validate(requiringFormatHeader: Bool) throws(TranscriptError) {
        guard entries.contains(where: { if case .exchange = $0 { return true }; return false }) else {
            throw TranscriptError(line: nil, message: Self.noExchanges)
        }
        if requiringFormatHeader, header(KnownHeader.format.rawValue) == nil {
            throw TranscriptError(line: line(ofEntry: 0),
                                  message: "no @format header before the first entry (this build reads @format \(Self.formatVersion))")
        }
        for (index, entry) in entries.enumerated() {
            guard case .exchange(_, let response, _) = entry else { continue }
            if let problem = Self.statusWordProblem(response) {
                throw TranscriptError(line: line(ofResponse: index), message: "response cut short: \(problem)")
            }
        }
        for message in TranscriptMessages.messages(of: self) where message.isComplete && message.ctapRequest != nil {
            guard message.response.count > 1 else { continue }
            do {
                _ = try CBORDecoder.decode(message.response.dropFirst())
            } catch .truncated {
                throw cutCBOR(message, CBORError.truncated)
            } catch .lengthExceedsInput(let declared, let available) {
                throw cutCBOR(message, CBORError.lengthExceedsInput(declared: declared, available: available))
            } catch {
                continue  // Not CBOR in another way: a card's answer to compare, not a cut file.
            }
        }
        try validateSessionMarkers()
    }

    /// Why `response` does not end in a status word, nil when it does.
    private static func statusWordProblem(_ response: [UInt8]) -> String? {
        guard response.count >= 2 else { return "\(response.count) byte(s), no status word" }
        let sw1 = response[response.count - 2]
        guard !(0x61...0x6F).contains(sw1), !(0x90...0x9F).contains(sw1) else { return nil }
        return "it ends in \(Hex.string(response.suffix(2))), which is not a status word (SW1 is 61-6F or 90-9F)"
    }

    /// The error for a CTAP2 message whose response CBOR ends early, at its last `<` line.
    private func cutCBOR(_ message: TranscriptMessage, _ error: CBORError) -> TranscriptError {
        let last = message.entries.last { index in
            if entries.indices.contains(index), case .exchange = entries[index] { return true }
            return false
        } ?? message.entries.lowerBound
        return TranscriptError(line: line(ofResponse: last), message: "\(message.name) response cut short: \(error)")
    }
}
