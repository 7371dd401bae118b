import FIDOWire
import ArculusCard
import Foundation
import Testing
import Transcript

@Suite("Transcript text format")
struct TranscriptTextTests {
    static let sample = """
    # arculus-card transcript
    @format 1
    @profile arculus-fido21
    @seed 000102
    @image blank
    @atr 3B8A8001417263756C7573456D7519
    @front busy-first busy-polls=2
    @source in-process (Swift)
    @vendor-extension kept as it is

    ! power-on
    > 00A4040008A0000006472F000100  # SELECT FIDO
    < 4649444F5F325F309000
    # between two exchanges
    > 80 10 80 00 01 04 00
    < 9100
    ! removed
    ! tapped
    ! reset
    ! power-off
    """

    @Test("parse then write then parse gives the same transcript, and writing is stable")
    func roundTrip() throws {
        let transcript = try Transcript.parse(Self.sample)
        #expect(transcript.headers.count == 8)
        #expect(transcript.header("vendor-extension") == "kept as it is")
        #expect(transcript.entries == [
            .event(.powerOn),
            .exchange(command: NFCBinding.selectFIDOApplet,
                      response: Array("FIDO_2_0".utf8) + [0x90, 0x00], note: "SELECT FIDO"),
            .comment("between two exchanges"),
            .exchange(command: [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], response: [0x91, 0x00], note: nil),
            .event(.removed), .event(.tapped), .event(.reset), .event(.powerOff),
        ])
        let written = transcript.text
        let reread = try Transcript.parse(written)
        #expect(reread == transcript)
        #expect(reread.text == written)
        #expect(written.contains("> 00A4040008A0000006472F000100  # SELECT FIDO\n< 4649444F5F325F309000\n"))
    }

    @Test("CRLF line ends read like LF")
    func crlf() throws {
        let text = Self.sample.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try Transcript.parse(text) == (try Transcript.parse(Self.sample)))
    }

    @Test("a transcript built in memory gets @format when written")
    func formatHeaderAdded() throws {
        let transcript = Transcript(entries: [.event(.powerOn)])
        #expect(transcript.text == "@format 1\n! power-on\n")
        #expect(try Transcript.parse(transcript.text).header("format") == "1")
    }

    @Test("entry lines: the source line when parsed, the line in `text` when built in memory")
    func lines() throws {
        let parsed = try Transcript.parse(Self.sample)
        #expect((0..<parsed.entries.count).map(parsed.line(ofEntry:)) == [11, 12, 14, 15, 17, 18, 19, 20])
        var built = Transcript(headers: [.init("format", "1"), .init("profile", "arculus-fido21")], entries: parsed.entries)
        let expected = [3, 4, 6, 7, 9, 10, 11, 12]
        #expect((0..<built.entries.count).map(built.line(ofEntry:)) == expected)
        let lines = built.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[3] == "> 00A4040008A0000006472F000100  # SELECT FIDO")
        built.headers.removeFirst()  // no @format: `text` adds one, so lines do not move
        #expect((0..<built.entries.count).map(built.line(ofEntry:)) == expected)
    }

    @Test("the known headers' values", arguments: [
        ("@seed 0A0B\n", [UInt8]([0x0A, 0x0B]) as [UInt8]?, [UInt8]?.none, false, 1),
        ("@atr 3B00\n@front busy-first\n", nil, [0x3B, 0x00], true, 1),
        ("@front busy-first busy-polls=3\n", nil, nil, true, 3),
        ("@format 1\n", nil, nil, false, 1),
    ])
    func knownHeaders(text: String, seed: [UInt8]?, atr: [UInt8]?, busy: Bool, polls: Int) throws {
        let transcript = try Transcript.parse(text)
        #expect(transcript.seed == seed)
        #expect(transcript.atr == atr)
        #expect(transcript.frontOptions.busyFirst == busy)
        #expect(transcript.frontOptions.busyPolls == polls)
    }

    @Test("every malformed line is refused with its line number and the reason", arguments: [
        ("@format 2\n", 1, "@format 2 is not a version this build reads (1)"),
        ("@profile x\n@format one\n", 2, "@format one is not a version this build reads (1)"),
        ("@format\n", 1, "@format without a version (this build reads 1)"),
        ("! power-on\n@profile arculus-fido21\n", 2, "header after the first entry"),
        ("@format 1\n@\n", 2, "header without a name"),
        ("! explode\n", 1, "unknown event 'explode' (known: power-on, power-off, reset, removed, tapped)"),
        ("> 0G\n< 9000\n", 1, "command is not hex bytes"),
        ("> 123\n< 9000\n", 1, "command is not hex bytes"),
        (">\n< 9000\n", 1, "command is not hex bytes"),
        ("\n< 9000\n", 2, "response without a command"),
        ("> 00\n< 9\n", 2, "response is not hex bytes ending in SW1 SW2"),
        ("> 00\n< 90\n", 2, "response is not hex bytes ending in SW1 SW2"),
        ("> 00\n< 9000A", 2, "response cut short: the file ends in the middle of a byte"),
        ("> 00\n< 9000 A", 2, "response cut short: the file ends in the middle of a byte"),
        ("> 00\n< 9000A\n", 2, "response is not hex bytes ending in SW1 SW2"),
        ("> 00\n< 9000Z", 2, "response is not hex bytes ending in SW1 SW2"),
        ("> 00A4\n> 00\n", 2, "expected the response ('<') to the command on line 1"),
        ("> 00A4\n! power-off\n", 2, "expected the response ('<') to the command on line 1"),
        ("! power-on\n> 00A4  # the end\n", 2, "command without a response"),
        ("@format 1\n> 00A404000", 2, "command cut short: the file ends in the middle of a byte"),
        ("@format 1\n> 00A404000\n< 9000\n", 2, "command is not hex bytes"),
        ("@format 1\n> 00A40400", 2, "command without a response: the file ends on it (cut short?)"),
        ("x marks the spot\n", 1, "unknown line kind 'x' (expected #, @, !, > or <)"),
        ("@seed zz\n", 1, "@seed is not hex bytes"),
        ("@seed\n", 1, "@seed is not hex bytes"),
        ("@atr " + String(repeating: "00", count: 34) + "\n", 1, "@atr is not 1 to 33 hex bytes"),
        ("@front fast\n", 1, "@front 'fast' is not understood (expected 'busy-first' and optionally 'busy-polls=N')"),
        ("@front busy-first busy-polls=-1\n", 1, "@front 'busy-first busy-polls=-1' is not understood (expected 'busy-first' and optionally 'busy-polls=N')"),
        ("@profile\n", 1, "@profile needs a profile name or a path"),
        ("@format 1\n@image\n", 2, "@image needs 'blank' or a path to a card image"),
    ])
    func parseErrors(text: String, line: Int, message: String) {
        #expect(throws: TranscriptError(line: line, message: message)) {
            try Transcript.parse(text)
        }
    }

    @Test("a parse error reads 'transcript line N: reason'")
    func errorDescription() {
        #expect("\(TranscriptError(line: 7, message: "command without a response"))" == "transcript line 7: command without a response")
    }

    @Test("recording headers: the order they are written in, seed and front only when they apply")
    func recordingHeaders() throws {
        let date = try #require(ISO8601DateFormatter().date(from: "2026-01-02T03:04:05Z"))
        let seeded = Transcript.recordingHeaders(profile: "arculus-fido2", seed: [0xAB, 0x01], image: "blank", atr: [0x3B, 0x00],
                                                 front: CardFront.Options(busyFirst: true, busyPolls: 2), source: "test", date: date)
        #expect(seeded.map { "@\($0.name) \($0.value)" } == [
            "@format 1", "@profile arculus-fido2", "@seed AB01", "@image blank", "@atr 3B00",
            "@front busy-first busy-polls=2", "@source test", "@date 2026-01-02T03:04:05Z",
        ])
        let plain = Transcript.recordingHeaders(profile: "p.json", seed: nil, image: "x.image", atr: nil, source: "s", date: date)
        #expect(plain.map(\.name) == ["format", "profile", "image", "source", "date"])
    }

    @Test("paths in headers are written relative to the transcript's folder", arguments: [
        ("/srv/repo/Fixtures/profiles/a.json", "/srv/repo/Fixtures/transcripts/t.transcript", "../profiles/a.json"),
        ("/srv/repo/Fixtures/transcripts/t.image", "/srv/repo/Fixtures/transcripts/t.transcript", "t.image"),
        ("/other/a.json", "/srv/t.transcript", "/other/a.json"),
    ])
    func relativePaths(path: String, transcript: String, expected: String) {
        #expect(Transcript.relativePath(of: path, fromFolderOf: transcript) == expected)
    }

    @Test("load names the file it cannot read, in the user's terms (no Foundation error text)")
    func loadMissing() throws {
        let path = "/nonexistent/x.transcript"
        #expect(throws: TranscriptFileError(path: path, reason: "cannot read: there is no such file")) {
            try Transcript.load(path: path)
        }
        let folder = FileManager.default.temporaryDirectory.path
        #expect(throws: TranscriptFileError(path: folder, reason: "cannot read: it is a directory, not a file")) {
            try Transcript.load(path: folder)
        }
    }
}
