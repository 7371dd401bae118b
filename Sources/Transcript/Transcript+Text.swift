import CTAP2
import FIDOWire

extension Transcript {
    /// Parses the text form. Strict: unknown line kinds, odd hex, a `<` without its `>`, a `>`
    /// without its `<`, headers after the first entry and an `@format` other than
    /// ``formatVersion`` are errors naming the line.
    ///
    /// - Parameter validation: `.syntax` (the default) reads any text of the form, a fragment
    ///   or a recording that has no exchange yet; `.complete` also wants what a replay, a check
    ///   and a stand-in need (see ``Validation/complete``).
    public static func parse(_ text: String, validation: Validation = .syntax) throws(TranscriptError) -> Transcript {
        var transcript = Transcript()
        var pendingCommand: (bytes: [UInt8], note: String?, line: Int)?
        var seenEntry = false
        var lineNumber = 0
        let lineCount = text.reduce(1) { $1 == "\n" || $1 == "\r\n" ? $0 + 1 : $0 }
        // "\r\n" too: in a Swift String it is one Character, which "\n" never equals.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            // Every carriage return before the line end goes: printed back before a "\n", one
            // would read as part of a CRLF line end, and the text would not parse back the same.
            var line = rawLine
            while line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            // The marker is the line's first Unicode scalar, not its first Character: a name or
            // note that begins with a combining mark is printed right after `@` or `# `, where it
            // joins the marker (or the space) into one Character.
            guard let marker = trimmed.unicodeScalars.first else { continue }
            let rest = Substring(trimmed.unicodeScalars.dropFirst())
            if marker == "#" {
                let comment = rest.trimmingLeadingSpace()
                // Kept once an entry is complete: one between the first `>` and its `<` would be
                // printed before every entry, where comments are not kept.
                if !transcript.entries.isEmpty {
                    transcript.append(.comment(comment), line: lineNumber)
                }
                continue
            }
            let (body, note) = splitNote(rest)
            if pendingCommand != nil && marker != "<" {
                throw TranscriptError(line: lineNumber, message: "expected the response ('<') to the command on line \(pendingCommand!.line)")
            }
            switch marker {
            case "@":
                guard !seenEntry else { throw TranscriptError(line: lineNumber, message: "header after the first entry") }
                let parts = body.split(separator: " ", maxSplits: 1)
                guard let name = parts.first, !name.isEmpty else {
                    throw TranscriptError(line: lineNumber, message: "header without a name")
                }
                transcript.headers.append(Header(String(name), parts.count > 1 ? String(parts[1]) : ""))
                if let problem = KnownHeader(rawValue: String(name))?.problem(with: parts.count > 1 ? String(parts[1]) : "") {
                    throw TranscriptError(line: lineNumber, message: problem)
                }
            case "!":
                guard let event = CardEvent(rawValue: body) else {
                    throw TranscriptError(line: lineNumber, message: "unknown event '\(body)' (known: \(CardEvent.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                seenEntry = true
                transcript.append(.event(event), line: lineNumber)
            case ">":
                guard let bytes = hexBytes(body), !bytes.isEmpty else {
                    // The last line, cut in the middle of a byte: the file was cut short.
                    let cut = lineNumber == lineCount && hexBytes(body + "0") != nil
                    throw TranscriptError(line: lineNumber, message: cut
                        ? "command cut short: the file ends in the middle of a byte"
                        : "command is not hex bytes")
                }
                seenEntry = true
                pendingCommand = (bytes, note, lineNumber)
            case "<":
                guard let command = pendingCommand else {
                    throw TranscriptError(line: lineNumber, message: "response without a command")
                }
                guard let bytes = hexBytes(body), bytes.count >= 2 else {
                    // The last line, cut in the middle of a byte: the file was cut short.
                    let cut = lineNumber == lineCount && hexBytes(body + "0") != nil
                    throw TranscriptError(line: lineNumber, message: cut
                        ? "response cut short: the file ends in the middle of a byte"
                        : "response is not hex bytes ending in SW1 SW2")
                }
                transcript.append(.exchange(command: command.bytes, response: bytes, note: command.note),
                                  line: command.line, responseLine: lineNumber)
                pendingCommand = nil
            default:
                throw TranscriptError(line: lineNumber, message: "unknown line kind '\(marker)' (expected #, @, !, > or <)")
            }
        }
        if let command = pendingCommand {
            // A file that ends on the command's own line, without its line break, was cut there.
            let cut = command.line == lineCount && !(text.hasSuffix("\n") || text.hasSuffix("\r\n"))
            throw TranscriptError(line: command.line, message: "command without a response" + (cut ? ": the file ends on it (cut short?)" : ""))
        }
        if validation == .complete { try transcript.validate(requiringFormatHeader: true) }
        return transcript
    }

    /// Adds a parsed entry with its source lines.
    private mutating func append(_ entry: TranscriptEntry, line: Int, responseLine: Int? = nil) {
        entries.append(entry)
        sourceLines.append(line)
        responseSourceLines.append(responseLine ?? line)
    }

    /// The text form: headers, then entries; hex in upper case without spaces.
    public var text: String {
        var lines: [String] = []
        if header("format") == nil { lines.append("@format \(Self.formatVersion)") }
        for header in headers { lines.append(header.value.isEmpty ? "@\(header.name)" : "@\(header.name) \(header.value)") }
        for entry in entries {
            switch entry {
            case .comment(let comment):
                lines.append("# \(comment)")
            case .event(let event):
                lines.append("! \(event.rawValue)")
            case .exchange(let command, let response, let note):
                lines.append("> \(command.hexString.uppercased())" + (note.map { "  # \($0)" } ?? ""))
                lines.append("< \(response.hexString.uppercased())")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func splitNote(_ text: Substring) -> (String, String?) {
        guard let hash = text.firstIndex(of: "#") else { return (text.trimmed(), nil) }
        let note = text[text.index(after: hash)...].trimmed()
        return (text[..<hash].trimmed(), note.isEmpty ? nil : note)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        Hex.bytes(text, ignoringWhitespace: true)
    }
}

extension Substring {
    /// Without the spaces, tabs and carriage returns at either end (a carriage return kept at the
    /// end of a field would be printed before a line end, changing the field when read back).
    /// By Unicode scalars: a space followed by a combining mark is one Character, and trimming
    /// Characters would keep that space, which printing then doubles.
    func trimmed() -> String {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        // Indexes, then one slice: rebuilding the string from reversed Characters cost ~1 µs a
        // character (a transcript of hex lines parsed at a few hundred bytes a millisecond).
        guard let first = unicodeScalars.firstIndex(where: { !blank($0) }),
              let last = unicodeScalars.lastIndex(where: { !blank($0) }) else { return "" }
        return String(Substring(unicodeScalars[first...last]))
    }

    /// Without the spaces at the start (by Unicode scalars, as ``trimmed()``).
    func trimmingLeadingSpace() -> String {
        String(Substring(unicodeScalars.drop { $0 == " " }))
    }
}
