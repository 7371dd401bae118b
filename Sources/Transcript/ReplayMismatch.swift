/// Why a replay failed, as a report a person can act on: the transcript line, the command,
/// the first differing field, and both responses in CBOR diagnostic notation.
///
/// `description` is the whole report, e.g.
/// ```
/// replay mismatch at transcript line 31: authenticatorGetInfo (byte-exact replay, 6 exchanges matched before it)
///   first difference: response.maxMsgSize{5}: different value: expected 2048, got 1200
///   expected: 9000 CTAP2_OK {1: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"], …}
///   actual:   9000 CTAP2_OK {1: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"], …}
/// ```
public struct ReplayMismatch: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Equatable, Sendable {
        /// The card answered differently.
        case mismatch
        /// The exchange is protected by the PIN/UV auth protocol (or hmac-secret), so only a
        /// card with the recording's key-agreement key, i.e. a seeded transcript, can answer it
        /// the same way; a structural replay stops there.
        case needsSeededTranscript
    }

    /// A mismatch, or an exchange only a seeded transcript can replay.
    public var kind: Kind
    /// The transcript line of the first APDU that differed (or of the message).
    public var line: Int
    /// The line the logical message starts on.
    public var messageLine: Int
    /// The message's name: CTAP command (and subcommand), U2F or ISO instruction.
    public var command: String
    /// The first differing field, when one was found.
    public var difference: FieldDifference?
    /// What the transcript has: status word, CTAP status and CBOR in diagnostic notation.
    public var expected: String
    /// What the card answered, in the same form.
    public var actual: String
    /// The replay mode in words (`byte-exact`, `structural`).
    public var mode: String
    /// APDU exchanges replayed and matched before this one.
    public var exchangesMatched: Int
    /// For ``Kind/needsSeededTranscript``: what in the request needs the card's key.
    public var explanation: String?

    /// The whole report.
    public var description: String {
        let at = line == messageLine ? "transcript line \(line)" : "transcript line \(line) (message from line \(messageLine))"
        switch kind {
        case .needsSeededTranscript:
            return """
            replay stopped at \(at): \(command) needs a seeded transcript
              \(explanation ?? "it is protected by the PIN/UV auth protocol")
              A structural replay cannot answer it the way the recorded card did: the host encrypted and
              authenticated it for the recorded card's key-agreement key, which only a card with the
              recording's seed has. Record with a seeded card (@seed) to replay it byte for byte.
              (\(Self.exchanges(exchangesMatched)) matched before it)
            """
        case .mismatch:
            var lines = ["replay mismatch at \(at): \(command) (\(mode) replay, \(Self.exchanges(exchangesMatched)) matched before it)"]
            if let difference {
                lines.append("  first difference: \(difference)")
            }
            lines.append("  expected: \(expected)")
            lines.append("  actual:   \(actual)")
            return lines.joined(separator: "\n")
        }
    }

    private static func exchanges(_ count: Int) -> String {
        count == 1 ? "1 exchange" : "\(count) exchanges"
    }
}
