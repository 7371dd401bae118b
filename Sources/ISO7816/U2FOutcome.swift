import FIDOWire
/// The result of a U2F (CTAP1) operation as the applet reports it to the card front.
///
/// U2F reports errors as ISO 7816 status words (FIDO U2F Raw Message Formats §3.3), so a
/// failure is just the word to answer, with no data.
public enum U2FOutcome: Equatable, Sendable {
    /// The response message; the front appends `9000` (and cuts it into `61xx` pieces
    /// when it is longer than the client's Ne).
    case success([UInt8])
    /// The status word to answer, e.g. `6985` (test of user presence required) or
    /// `6A80` (bad key handle).
    case failure(StatusWord)
}
