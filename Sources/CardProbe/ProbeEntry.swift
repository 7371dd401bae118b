import JSONSupport

/// One entry of the battery: a stable ID, what it asks in the user's terms, the state of the card
/// it starts from, whether it changes the card, and how it runs.
struct ProbeEntry {
    /// The card's state before the entry runs.
    enum Start {
        /// The FIDO applet selected (a SELECT first).
        case selected
        /// Just tapped, then the FIDO applet selected: nothing left over from earlier entries.
        case fresh
        /// Just tapped, nothing selected.
        case unselected
        /// As the previous entry left it (a step of a sequence).
        case continuing
    }

    let id: String
    let summary: String
    let start: Start
    /// Whether the entry may change the card: run only with writes allowed.
    let writes: Bool
    let run: (ProbeSession) throws(ProbeInterruption) -> ProbeRecord

    init(_ id: String, _ summary: String, start: Start = .selected, writes: Bool = false,
         run: @escaping (ProbeSession) throws(ProbeInterruption) -> ProbeRecord) {
        self.id = id
        self.summary = summary
        self.start = start
        self.writes = writes
        self.run = run
    }
}

/// What one entry sent (structurally) and what came back.
struct ProbeRecord {
    var request: JSONValue
    var answer: JSONValue
}
