import CardProbe
import FIDOWire
import Foundation
import JSONSupport
import Testing

/// A card's or a file's strings are printed escaped: one function (``DisplayText``) writes every
/// control character as a JSON escape, so that an extension named `ESC [2J` and a newline can
/// neither clear the terminal nor forge a line of the report.
@Suite("Strings from a card or a file are printed escaped")
struct DisplayEscapingTests {
    @Test("every control character is escaped, JSON-style; the rest, backslashes included, stays",
          arguments: [
              ("\u{1B}[2J", #"\u001b[2J"#), ("a\nb", #"a\nb"#), ("a\rb", #"a\rb"#), ("a\tb", #"a\tb"#), ("\u{00}", #"\u0000"#),
              ("\u{7F}", #"\u007f"#), ("\u{9B}31m", #"\u009b31m"#), ("\u{85}", #"\u0085"#), ("user\u{202E}gnp.exe", #"user\u202egnp.exe"#),
              ("\u{2028}\u{2029}", #"\u2028\u2029"#), ("\u{2066}x\u{2069}", #"\u2066x\u2069"#), ("\u{061C}\u{200E}\u{200F}", #"\u061c\u200e\u200f"#),
              ("credProtect", "credProtect"), (#"C:\path \u001b"#, #"C:\path \u001b"#), ("Bjørn 🔑 名前", "Bjørn 🔑 名前"), ("", ""),
          ])
    func escapes(raw: String, shown: String) {
        #expect(DisplayText.escaped(raw) == shown)
        #expect(!DisplayText.escaped(raw).unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("keeping line breaks: newlines and tabs stay, every other control character is escaped")
    func keepingLineBreaks() {
        #expect(DisplayText.escaped("line 1\n\tline 2\u{1B}[2J\r\u{9B}", keepingLineBreaks: true) == "line 1\n\tline 2\\u001b[2J\\r\\u009b")
    }

    @Test("escaped JSON is the same JSON: a string with C1 and bidirectional controls parses back to itself")
    func jsonStaysJSON() throws {
        let value: JSONValue = ["rpName": .string("evil\u{85}\u{9B}2J\u{202E}")]
        let shown = DisplayText.escaped(value.text, keepingLineBreaks: true)
        #expect(!shown.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(try JSONValue(parsing: shown) == value)
    }

    @Test("a diff of fingerprints whose getInfo names an extension ESC [2J, a newline and a forged line: one line, escaped")
    func forgedExtensionInADiff() throws {
        let forged = "\u{1B}[2Jok\n- getInfo: no differences"
        func fingerprint(_ extensions: [JSONValue]) -> Fingerprint {
            let answer: JSONValue = ["sw": "9000", "ctap": "CTAP2_OK", "body": ["extensions": .array(extensions)]]
            return Fingerprint(battery: BatteryStamp(version: 1, entries: 1, writes: false), atr: "3B", source: "",
                               probes: ["getInfo\u{1B}[1A": ProbeResult(description: "getInfo\u{85}", request: "fixed", answer: answer)])
        }
        let diff = try FingerprintDiff(fingerprint(["credProtect", .string(forged)]), fingerprint(["credProtect"]))
        let sentences = diff.differences.map { $0.sentence(("your card", "the emulator")) }
        #expect(sentences == [#"getInfo\u0085, extensions: your card ["credProtect","\u001b[2Jok\n- getInfo: no differences"], the emulator ["credProtect"]"#])
        #expect(diff.differences.map(\.path) == ["probes/getInfo\u{1B}[1A/answer/body/extensions"], "the path is kept as it is; printing escapes it")
    }

    @Test("a fingerprint file with a forged entry ID: the error names it escaped, on one line")
    func forgedEntryInAnError() throws {
        let error = FingerprintError.malformed(file: "card.json", path: "probes.x\u{1B}[2J\nforged", reason: "has no description")
        #expect(error.description == #"card.json is not a whole fingerprint: probes.x\u001b[2J\nforged has no description"#)
    }
}
