extension Transcript {
    /// The entries of each recording session, in order; one range for a transcript recorded in
    /// one go.
    ///
    /// A file that several runs of a recorder appended to (``TranscriptFileWriter/Mode/appendSession``)
    /// holds one session per run. Session 1 is everything up to the first session marker, a
    /// comment `# session N recorded …`; each marker starts session N. Every session was
    /// recorded with the file's headers (only `@source` and `@date` may have changed, and the
    /// marker says them), each on a card made afresh from those headers, so a replay makes a
    /// new card for each session.
    public var sessions: [Range<Int>] {
        let starts = entries.indices.filter { index in
            if case .comment(let text) = entries[index] { return Self.sessionNumber(ofComment: text) != nil }
            return false
        }
        return zip([0] + starts, starts + [entries.count]).map { $0..<$1 }
    }

    /// The number of the session a comment's text starts (`session 2 recorded …`), nil for
    /// any other comment.
    static func sessionNumber(ofComment text: String) -> Int? {
        let words = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard words.count >= 3, words[0] == "session", words[2] == "recorded",
              words[1].allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(words[1]), number >= 1 else { return nil }
        return number
    }

    /// The text of the comment that starts session `number`: `session 2 recorded DATE from SOURCE`.
    static func sessionMarker(number: Int, headers: [Header]) -> String {
        let value = { (header: KnownHeader) in headers.first { $0.name == header.rawValue }?.value }
        return "session \(number) recorded" + (value(.date).map { " \($0)" } ?? "") + (value(.source).map { " from \($0)" } ?? "")
    }

    /// Why a session recorded under `session` headers cannot be appended to a file whose
    /// headers are `file`, nil when it can: the headers that describe the card (all but
    /// `@source` and `@date`) must be the same, and the card must not start from a card image.
    static func appendProblem(fileHeaders file: [Header], sessionHeaders session: [Header]) -> String? {
        let perSession: Set<String> = [KnownHeader.source.rawValue, KnownHeader.date.rawValue]
        if let image = session.first(where: { $0.name == KnownHeader.image.rawValue })?.value, image != "blank" {
            return "its card starts from a card image (@image \(image)), and a later session would start from what the "
                + "image holds by then, which a transcript cannot say; record it to another file"
        }
        func value(_ name: String, in headers: [Header]) -> String? { headers.first { $0.name == name }?.value }
        func describe(_ name: String, _ value: String?) -> String { value.map { "@\(name) \($0)" } ?? "no @\(name)" }
        var names: [String] = []
        for name in (session + file).map(\.name) where !perSession.contains(name) && !names.contains(name) { names.append(name) }
        for name in names where value(name, in: session) != value(name, in: file) {
            return "this session has \(describe(name, value(name, in: session))) where the file has \(describe(name, value(name, in: file))); "
                + "a transcript's sessions share its headers (only @source and @date may change): record it to another file"
        }
        return nil
    }

    /// Checks that the session markers are numbered 2, 3, … in order.
    func validateSessionMarkers() throws(TranscriptError) {
        var expected = 2
        for (index, entry) in entries.enumerated() {
            guard case .comment(let text) = entry, let number = Self.sessionNumber(ofComment: text) else { continue }
            guard number == expected else {
                throw TranscriptError(line: line(ofEntry: index), message: "session \(number) where session \(expected) was expected")
            }
            expected += 1
        }
    }
}
