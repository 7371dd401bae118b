/// How a replay compares the card's answers with the transcript.
public enum ReplayMode: String, Sendable {
    /// Every response byte for byte: for transcripts of a seeded card (`@seed`), whose random
    /// values a card with the same seed draws again.
    case exact = "byte-exact"
    /// Per logical message: same status words and CTAP status, same CBOR shape, constant
    /// fields equal, signatures verified, counters increasing (see ``TranscriptReplay``).
    case structural
}
