/// The outcome of a replay.
public struct ReplayResult: Sendable {
    /// How the responses were compared.
    public var mode: ReplayMode
    /// APDU exchanges sent to the card.
    public var exchangesReplayed: Int
    /// Logical messages (``TranscriptMessage``) replayed, events included.
    public var messagesReplayed: Int
    /// Recording sessions (``Transcript/sessions``) replayed, each on a card of its own; the
    /// last one may have stopped at the mismatch.
    public var sessionsReplayed = 1
    /// The first failure, nil when everything matched.
    public var mismatch: ReplayMismatch?
    /// Things a structural replay could not check (e.g. an assertion by a credential whose
    /// key the card does not reveal), with their lines.
    public var notes: [String]

    /// Whether every exchange matched.
    public var passed: Bool { mismatch == nil }

    /// One line: `N exchanges replayed, all matched (byte-exact)` (`… replayed in K sessions, …`
    /// for several), or the report.
    public var summary: String {
        if let mismatch { return mismatch.description }
        let sessions = sessionsReplayed > 1 ? " in \(sessionsReplayed) sessions" : ""
        return "\(exchangesReplayed) exchanges replayed\(sessions), all matched (\(mode.rawValue))"
    }
}
