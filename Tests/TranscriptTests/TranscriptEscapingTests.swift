import Testing
import Transcript

/// A transcript's text is whoever recorded it's: a map key or a line quoted in a report is
/// printed escaped, so that a key named `ESC [2J` and a newline can neither clear the terminal
/// nor forge a line of the replay report.
@Suite("Replay reports and transcript errors print a transcript's strings escaped")
struct TranscriptEscapingTests {
    @Test("a text map key with ESC [2J and a newline: the path stays one line, escaped")
    func forgedKeyInAPath() {
        let path = FieldPath("response", [.key(.int(4), name: "options"), .key(.text("\u{1B}[2J\nreplay: all matched"), name: nil)])
        #expect(path.description == #"response.options{4}.\u001b[2J\nreplay: all matched"#)
        let difference = FieldDifference(path: path, expected: "true", actual: "absent", reason: "missing")
        #expect(difference.description == #"response.options{4}.\u001b[2J\nreplay: all matched: missing: expected true, got absent"#)
        #expect(!difference.description.contains("\n") && !difference.description.contains("\u{1B}"))
    }

    @Test("a transcript error quoting the file's text: escaped, on one line")
    func forgedTextInAnError() {
        let error = TranscriptError(line: 3, message: "unknown header '@x\u{1B}[2J\u{9B}0m\nforged.transcript:4: ok'", file: "a.transcript")
        #expect(error.description == #"a.transcript:3: unknown header '@x\u001b[2J\u009b0m\nforged.transcript:4: ok'"#)
    }
}
