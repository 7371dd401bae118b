/// An APDU transcript: what a host and a card said to each other, as diff-friendly text.
///
/// Format (version 1), one item per line:
/// ```
/// # arculus-card transcript              ← '#' starts a comment (also after an entry)
/// @format 1                              ← headers: '@name value', before the first entry
/// @profile arculus-fido21
/// @seed 000102…                          ← present when the card was deterministic
/// @image blank
/// ! power-on                             ← card events
/// > 00A4040008A0000006472F000100         ← command APDU (hex, spaces allowed)
/// < 4649444F5F325F309000                 ← its response (data + SW1 SW2)
/// ```
/// Every `>` line is followed by exactly one `<` line. Events: `power-on`, `power-off`,
/// `reset`, `removed` (the card left the field), `tapped` (it came back). A comment
/// `# session N recorded …` starts the next recording session of a file several recordings
/// were appended to (see ``sessions``).
///
/// ``parse(_:validation:)`` reads any text of the form; a transcript to replay, check or stand
/// in for also needs `@format`, an exchange and whole responses (``Validation/complete``,
/// what ``load(path:validation:)`` asks by default, and ``validate()``).
///
/// Headers this build knows (see ``KnownHeader``; others are kept and ignored): `@format`,
/// `@profile NAME|PATH`, `@seed HEX`, `@image blank|PATH`, `@atr HEX`, `@front busy-first
/// [busy-polls=N]`, `@source TEXT`, `@date ISO-8601`. Paths are relative to the transcript
/// file. The known ones are checked when a transcript is parsed.
public struct Transcript: Equatable, Sendable {
    /// Headers in file order.
    public var headers: [Header]
    /// Exchanges, events and comments in order.
    public var entries: [TranscriptEntry]
    /// For a parsed transcript, the 1-based source line of each entry (an exchange's `>`
    /// line); empty for one built in memory. Not part of equality. Use ``line(ofEntry:)``.
    public internal(set) var sourceLines: [Int] = []
    /// For a parsed transcript, the source line of each entry's `<` line (an exchange's
    /// response; the entry's own line for the others). Use ``line(ofResponse:)``.
    var responseSourceLines: [Int] = []

    /// The format version this build writes and reads.
    public static let formatVersion = 1

    public init(headers: [Header] = [], entries: [TranscriptEntry] = []) {
        self.headers = headers
        self.entries = entries
    }

    /// Equal when headers and entries are; where they came from (``sourceLines``) does not count.
    public static func == (lhs: Transcript, rhs: Transcript) -> Bool {
        lhs.headers == rhs.headers && lhs.entries == rhs.entries
    }

    /// The line an entry is on: its source line when parsed (and the entries were not
    /// changed since), otherwise the line it has in ``text``.
    public func line(ofEntry index: Int) -> Int {
        if sourceLines.count == entries.count, sourceLines.indices.contains(index) { return sourceLines[index] }
        var line = (header("format") == nil ? 1 : 0) + headers.count + 1
        for entry in entries.prefix(index) {
            if case .exchange = entry { line += 2 } else { line += 1 }
        }
        return line
    }

    /// The line of an exchange's response (`<`): its source line when parsed (and the entries
    /// were not changed since), otherwise the line it has in ``text``.
    func line(ofResponse index: Int) -> Int {
        if responseSourceLines.count == entries.count, responseSourceLines.indices.contains(index) {
            return responseSourceLines[index]
        }
        guard entries.indices.contains(index), case .exchange = entries[index] else { return line(ofEntry: index) }
        return line(ofEntry: index) + 1
    }

    /// One `@name value` line.
    public struct Header: Equatable, Sendable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The value of the first header called `name`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Sets (replacing) or appends a header.
    public mutating func setHeader(_ name: String, _ value: String) {
        if let index = headers.firstIndex(where: { $0.name == name }) {
            headers[index].value = value
        } else {
            headers.append(Header(name, value))
        }
    }

    /// The command/response pairs only.
    public var exchanges: [(command: [UInt8], response: [UInt8])] {
        entries.compactMap { entry in
            if case .exchange(let command, let response, _) = entry { return (command, response) }
            return nil
        }
    }
}

/// One item of a transcript.
public enum TranscriptEntry: Equatable, Sendable {
    /// A command APDU and its response; `note` is the trailing comment of the command line.
    case exchange(command: [UInt8], response: [UInt8], note: String?)
    /// Something that happened to the card.
    case event(CardEvent)
    /// A whole-line comment.
    case comment(String)
}

/// Events that matter to a card.
public enum CardEvent: String, Sendable, CaseIterable {
    case powerOn = "power-on"
    case powerOff = "power-off"
    case reset
    case removed
    case tapped
}
