import Foundation
import Testing
import Transcript
import FIDOWire
import TestSupport

/// What a transcript needs before it is replayed, checked or stood in for: `@format`, an
/// exchange, whole responses. Each refusal is the exact error, naming the file and the line.
@Suite("Transcript validation")
struct TranscriptValidationTests {
    static let noExchanges = "no exchanges (a transcript needs at least one '>' command and its '<' response)"
    static let noFormat = "no @format header before the first entry (this build reads @format 1)"
    static let select = "> 00A4040008A0000006472F000100\n< 4649444F5F325F309000\n"
    /// authenticatorClientPIN (getPINRetries), and the start of its answer `00 A2 03 08 04 F4 90 00`.
    static let getPINRetries = "> 801080000606A20102020100\n"

    /// Texts that parse as text but are no transcript to use, with the line (nil: the whole
    /// transcript) and the reason.
    static let unusable: [(name: String, text: String, line: Int?, message: String)] = [
        ("empty", "", nil, noExchanges),
        ("blank lines and comments", "\n# nothing yet\n\n", nil, noExchanges),
        ("headers only", "@format 1\n@profile arculus-fido21\n@seed 01\n", nil, noExchanges),
        ("power events only", "@format 1\n! power-on\n# between\n! power-off\n", nil, noExchanges),
        ("no @format", "@profile arculus-fido21\n\n! power-on\n" + select, 3, noFormat),
        ("no headers at all", select, 1, noFormat),
        ("@format after nothing but comments", "# a transcript\n" + select, 2, noFormat),
        ("a status word that is none: the file was cut at an even place",
         "@format 1\n" + getPINRetries + "< 00A2030804F4", 3,
         "response cut short: it ends in 04F4, which is not a status word (SW1 is 61-6F or 90-9F)"),
        ("SW1 60 is a T=0 procedure byte, not a status word",
         "@format 1\n" + select + "> 00B0000000\n< 6000\n", 5,
         "response cut short: it ends in 6000, which is not a status word (SW1 is 61-6F or 90-9F)"),
        ("CBOR that ends inside a map, before a status word by chance",
         "@format 1\n" + getPINRetries + "< 00A203089000\n", 3,
         "authenticatorClientPIN (getPINRetries) response cut short: CBOR input ends inside a data item"),
        ("CBOR whose byte string is longer than what is left",
         "@format 1\n" + getPINRetries + "< 00A1035820AABB9000\n", 3,
         "authenticatorClientPIN (getPINRetries) response cut short: CBOR item declares length 32 but only 2 byte(s) remain"),
        ("the cut response's line, after a comment between command and response",
         "@format 1\n" + select + getPINRetries + "# waiting\n\n< 00A2030804F4\n", 7,
         "response cut short: it ends in 04F4, which is not a status word (SW1 is 61-6F or 90-9F)"),
        ("the last piece of a GET RESPONSE chain carries the cut CBOR",
         "@format 1\n" + getPINRetries + "< 00A26104\n> 00C0000004\n< 03089000\n", 5,
         "authenticatorClientPIN (getPINRetries) response cut short: CBOR input ends inside a data item"),
        ("a second session marker out of order",
         "@format 1\n" + select + "# session 3 recorded 2026-01-01T00:00:00Z\n" + select, 4,
         "session 3 where session 2 was expected"),
    ]

    @Test("load refuses what cannot be replayed, naming the file and the line", arguments: unusable.indices)
    func loadRefuses(index: Int) throws {
        let (name, text, line, message) = Self.unusable[index]
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("unusable.transcript")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TranscriptError(line: line, message: message, file: path), "\(name)") {
            try Transcript.load(path: path)
        }
        // What the file says is still read as text: only using it is refused.
        let parsed = try Transcript.parse(text)
        #expect(throws: TranscriptError(line: line, message: message), "\(name)") {
            try Transcript.parse(text, validation: .complete)
        }
        if message != Self.noFormat {
            // Replay and stand-in check the value the same way (one built in memory has no
            // @format to miss: `text` writes this build's).
            #expect(throws: TranscriptError(line: line, message: message), "\(name)") { try parsed.validate() }
            #expect(throws: TranscriptError(line: line, message: message), "\(name)") { try TranscriptReplay(transcript: parsed).run() }
            #expect(throws: TranscriptError(line: line, message: message), "\(name)") { try TranscriptStandIn(transcript: parsed) }
        } else {
            try parsed.validate()
        }
    }

    @Test("what a replay can use passes: a response that is not CBOR in another way is the card's answer, not a cut file")
    func usable() throws {
        let text = "@format 1\n" + Self.select + Self.getPINRetries + "< 00FF9000\n> 00B0000000\n< 6A82\n"
        let transcript = try Transcript.parse(text, validation: .complete)
        try transcript.validate()
        #expect(transcript.exchanges.count == 3)
    }

    @Test("an error reads FILE:LINE: reason, or FILE: reason for the whole file")
    func descriptions() {
        #expect("\(TranscriptError(line: 3, message: Self.noFormat, file: "a.transcript"))" == "a.transcript:3: " + Self.noFormat)
        #expect("\(TranscriptError(line: nil, message: Self.noExchanges, file: "a.transcript"))" == "a.transcript: " + Self.noExchanges)
        #expect("\(TranscriptError(line: nil, message: Self.noExchanges))" == "transcript: " + Self.noExchanges)
    }

    @Test("a syntax error in a file names the file too")
    func syntaxErrorNamesFile() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("broken.transcript")
        try "@format 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let expected = TranscriptError(line: 1, message: "@format 2 is not a version this build reads (1)", file: path)
        #expect(throws: expected) { try Transcript.load(path: path) }
        #expect(throws: expected) { try Transcript.load(path: path, validation: .syntax) }
        #expect("\(expected)" == "\(path):1: @format 2 is not a version this build reads (1)")
    }

    // MARK: - A recording cut in the middle of its last response

    /// The register-and-authenticate fixture up to its last response (line 39, a getAssertion
    /// answer), cut after `hexDigits` of its hex digits, as a file would be that a full disk or
    /// a copy cut short.
    static func cutFixture(hexDigits: Int) throws -> String {
        let text = try String(contentsOfFile: Repository.transcripts + "/webauthn-register-authenticate.transcript", encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[38].hasPrefix("< 00A301"), "line 39 is the last getAssertion answer")
        return lines.prefix(38).joined(separator: "\n") + "\n" + lines[38].prefix(2 + hexDigits)
    }

    /// The message for a response cut after `hexDigits` of line 39's digits: its last whole byte
    /// pair is no status word (the fixture is checked to make that so), or half a byte is left.
    static func cutMessage(hexDigits: Int) throws -> String {
        guard hexDigits % 2 == 0 else { return "response cut short: the file ends in the middle of a byte" }
        let text = try String(contentsOfFile: Repository.transcripts + "/webauthn-register-authenticate.transcript", encoding: .utf8)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[38]
        let tail = String(line.dropFirst(2).prefix(hexDigits).suffix(4))
        return notAStatusWord(tail)
    }

    static func notAStatusWord(_ tail: String) -> String {
        let sw1 = UInt8(tail.prefix(2), radix: 16) ?? 0
        #expect(!((0x61...0x6F).contains(sw1) || (0x90...0x9F).contains(sw1)), "the cut must not end in a status word")
        return "response cut short: it ends in \(tail), which is not a status word (SW1 is 61-6F or 90-9F)"
    }

    @Test("a last response cut short is reported as cut, with its line, by load, replay and stand-in", arguments: [100, 101])
    func cutRecording(hexDigits: Int) throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("cut.transcript")
        try Self.cutFixture(hexDigits: hexDigits).write(toFile: path, atomically: true, encoding: .utf8)
        let expected = TranscriptError(line: 39, message: try Self.cutMessage(hexDigits: hexDigits), file: path)
        #expect(throws: expected) { try Transcript.load(path: path) }
        #expect(throws: expected) { try TranscriptReplay.verify(fileAt: path) }
        #expect(throws: expected) { try TranscriptStandIn(fileAt: path) }
    }

    @Test("built in memory, a cut response stops the replay before any comparison")
    func cutInMemory() throws {
        var transcript = try Transcript.load(path: Repository.transcripts + "/webauthn-register-authenticate.transcript")
        let last = try #require(transcript.entries.lastIndex { if case .exchange = $0 { return true }; return false })
        guard case .exchange(let command, let response, let note) = transcript.entries[last] else { return }
        transcript.entries[last] = .exchange(command: command, response: Array(response.prefix(50)), note: note)
        let expected = TranscriptError(line: 39, message: Self.notAStatusWord(Hex.string(response[48..<50])))
        #expect(throws: expected) { try TranscriptReplay(transcript: transcript).run() }
        #expect(throws: expected) { try TranscriptStandIn(transcript: transcript) }

        // Never parsed: the line is the one the response has in `text`.
        let built = Transcript(headers: [.init("format", "1")], entries: [
            .exchange(command: [0x00, 0xA4, 0x04, 0x00, 0x00], response: [0x90, 0x00], note: nil),
            .comment("then"),
            .exchange(command: [0x00, 0xB0, 0x00, 0x00, 0x00], response: [0x00, 0xA2], note: nil),
        ])
        #expect(built.text.split(separator: "\n")[5] == "< 00A2")
        #expect(throws: TranscriptError(line: 6, message: "response cut short: it ends in 00A2, which is not a status word (SW1 is 61-6F or 90-9F)")) {
            try TranscriptReplay(transcript: built).run()
        }
    }
}
