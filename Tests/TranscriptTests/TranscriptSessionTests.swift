import ArculusCard
import Foundation
import Testing
import Transcript
import TestSupport

/// Several recordings appended to one file (`TranscriptFileWriter.Mode.appendSession`), each a
/// session replayed on a card of its own.
@Suite("Transcript sessions")
struct TranscriptSessionTests {
    static func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    /// One run of a recorder appending to `path`: a fresh card (as each `serve` starts one), a
    /// discoverable credential and an assertion with it, between a power-on and a power-off.
    static func recordSession(to path: String, seed: [UInt8]?, date: String,
                              mode: TranscriptFileWriter.Mode = .appendSession) throws -> TranscriptRecorder {
        let card = try VirtualCard(entropy: seed.map { .seeded($0) } ?? .system)
        let recorder = try TranscriptRecorder(card: card, source: "unit test", date: try Self.date(date), recordingTo: path, fileMode: mode)
        recorder.powerOn()
        let host = TestHost(card: recorder)
        _ = host.select()
        let made = try host.ctapBody(.makeCredential, Requests.makeCredential(rk: true))
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(allow: [try Requests.credentialID(made)]))
        recorder.powerOff()
        #expect(recorder.fileError == nil)
        return recorder
    }

    static let dates = ["2026-01-01T10:00:00Z", "2026-01-02T11:00:00Z", "2026-01-03T12:00:00Z"]

    @Test("appended sessions each replay on a card of their own, seeded byte for byte or structurally",
          arguments: [[UInt8]?.some(testSeed), nil])
    func appendedSessionsReplay(seed: [UInt8]?) throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        let recorders = try Self.dates.map { try Self.recordSession(to: path, seed: seed, date: $0) }
        #expect(recorders.map { $0.file?.session } == [1, 2, 3])

        let transcript = try Transcript.load(path: path)
        #expect(transcript.headers == recorders[0].transcript.headers, "the file's headers are its first session's")
        #expect(transcript.sessions.count == 3)
        #expect(transcript.sessions.dropFirst().map { transcript.entries[$0.lowerBound] } == [
            .comment("session 2 recorded 2026-01-02T11:00:00Z from unit test"),
            .comment("session 3 recorded 2026-01-03T12:00:00Z from unit test"),
        ])
        #expect(transcript.sessions.map { Array(transcript.entries[$0]).filter { if case .comment = $0 { false } else { true } } }
                == recorders.map(\.transcript.entries), "each session holds what its recorder saw")
        // A recorder's transcript is its own session, under its own headers.
        #expect(recorders[1].transcript.header("date") == "2026-01-02T11:00:00Z")

        let result = try TranscriptReplay.verify(fileAt: path)
        #expect(result.sessionsReplayed == 3)
        #expect(result.exchangesReplayed == transcript.exchanges.count)
        #expect(result.summary == "\(transcript.exchanges.count) exchanges replayed in 3 sessions, all matched (\(seed == nil ? "structural" : "byte-exact"))")
        #expect(result.notes.isEmpty, "\(result.notes)")
    }

    @Test("replayed on one card, as if the markers were plain comments, the second session does not match")
    func sessionsNeedTheirOwnCard() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        for date in Self.dates.prefix(2) { _ = try Self.recordSession(to: path, seed: testSeed, date: date) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let merged = try Transcript.parse(text.replacingOccurrences(of: "# session 2 recorded", with: "# was session 2, recorded"))
        #expect(merged.sessions.count == 1)
        let mismatch = try #require(try TranscriptReplay(transcript: merged).run().mismatch)
        // The card went on from the first session: its seeded stream made another credential.
        #expect(mismatch.command == "authenticatorMakeCredential")
        let secondMake = try #require(TranscriptMessages.messages(of: merged).last { $0.ctapCommand == .makeCredential })
        #expect(mismatch.messageLine == secondMake.line)
    }

    @Test("a stand-in answers the requests of every session in order")
    func standInAcrossSessions() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        let recorders = try Self.dates.prefix(2).map { try Self.recordSession(to: path, seed: testSeed, date: $0) }
        let standIn = try TranscriptStandIn(fileAt: path)
        #expect(standIn.expectedCount == 4)
        for recorder in recorders {
            standIn.powerOn()
            let host = TestHost(card: standIn)
            _ = host.select()
            for message in TranscriptMessages.messages(of: recorder.transcript) {
                guard case .ctap2(let request, _) = message.kind else { continue }
                #expect(host.ctap(raw: request) == message.response, "\(message.name)")
            }
            standIn.powerOff()
        }
        #expect(standIn.mismatches.isEmpty, "\(standIn.mismatches)")
        #expect(standIn.isFinished)
    }

    // MARK: - What may be appended

    static func headers(seed: [UInt8]? = [0x01], profile: String = "arculus-fido21", image: String = "blank",
                        date: String = "2026-01-01T10:00:00Z") throws -> [Transcript.Header] {
        Transcript.recordingHeaders(profile: profile, seed: seed, image: image, atr: [0x3B, 0x00], source: "unit test", date: try Self.date(date))
    }

    static let shareHeaders = "a transcript's sessions share its headers (only @source and @date may change): record it to another file"

    static let refusedHeaders: [(name: String, session: @Sendable () throws -> [Transcript.Header], reason: String)] = [
        ("another seed", { try headers(seed: [0x02]) },
         "this session has @seed 02 where the file has @seed 01; " + shareHeaders),
        ("no seed", { try headers(seed: nil) },
         "this session has no @seed where the file has @seed 01; " + shareHeaders),
        ("another profile", { try headers(profile: "arculus-fido2") },
         "this session has @profile arculus-fido2 where the file has @profile arculus-fido21; " + shareHeaders),
        ("a card image", { try headers(image: "sessions.transcript.image") },
         "its card starts from a card image (@image sessions.transcript.image), and a later session would start from what "
            + "the image holds by then, which a transcript cannot say; record it to another file"),
    ]

    @Test("a session whose card is not the file's is refused, and the file is left as it was", arguments: refusedHeaders.indices)
    func refusedSession(index: Int) throws {
        let (name, session, reason) = Self.refusedHeaders[index]
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        let first = try TranscriptFileWriter(path: path, headers: try Self.headers(), mode: .appendSession)
        try first.append(.exchange(command: [0x00, 0xA4, 0x04, 0x00, 0x00], response: [0x6A, 0x82], note: nil))
        first.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: TranscriptFileError(path: path, reason: "cannot append a session to it: " + reason), "\(name)") {
            try TranscriptFileWriter(path: path, headers: try session(), mode: .appendSession)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // Another date and source are what a session may change.
        var later = try Self.headers(date: "2026-02-02T02:02:02Z")
        later[later.firstIndex { $0.name == "source" }!].value = "another host"
        let second = try TranscriptFileWriter(path: path, headers: later, mode: .appendSession)
        #expect(second.session == 2)
        second.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix("\n# session 2 recorded 2026-02-02T02:02:02Z from another host\n"))
    }

    @Test("appending to a card image's transcript is refused before its snapshot is overwritten")
    func imageSnapshotKept() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("session.transcript")
        let image = folder.file("card.image")
        let first = Data(CardImageFormat.encode(CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 1, count: 32))))
        try first.write(to: URL(fileURLWithPath: image))
        // No transcript yet: the first session takes its snapshot as always.
        #expect(try TranscriptRecorder.imageReference(forImageAt: image, recordingTo: path, fileMode: .appendSession) == "session.transcript.image")
        let writer = try TranscriptFileWriter(path: path, headers: try Self.headers(image: "session.transcript.image"), mode: .appendSession)
        try writer.append(.event(.powerOn))
        writer.close()
        // What the first session did to the card.
        try Data(CardImageFormat.encode(CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 2, count: 32))))
            .write(to: URL(fileURLWithPath: image))
        #expect(throws: TranscriptFileError(path: path, reason: "cannot append a session to it: its card starts from a card image "
                                            + "(@image session.transcript.image), and a later session would start from what the image "
                                            + "holds by then, which a transcript cannot say; record it to another file")) {
            try TranscriptRecorder.imageReference(forImageAt: image, recordingTo: path, fileMode: .appendSession)
        }
        #expect(FileManager.default.contents(atPath: path + ".image") == first)
    }

    @Test("a file that cannot take another session says why", arguments: [
        ("@format 1\n> 00A4040000\n< 9000", "it ends in the middle of a line (was the last session cut short?)"),
        ("@format 1\n> 00A4040000\n\n", "line 2: command without a response"),
        ("@format 2\n! power-on\n", "line 1: @format 2 is not a version this build reads (1)"),
    ])
    func unappendable(text: String, reason: String) throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TranscriptFileError(path: path, reason: "cannot append a session to it: " + reason)) {
            try TranscriptFileWriter(path: path, headers: try Self.headers(), mode: .appendSession)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test("a file that is not UTF-8 cannot take another session")
    func notUTF8() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        try Data([0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: TranscriptFileError(path: path, reason: "cannot append a session to it: not UTF-8 text")) {
            try TranscriptFileWriter(path: path, headers: try Self.headers(), mode: .appendSession)
        }
    }

    @Test("a missing, empty or entry-less file is written anew: there is no session in it to keep", arguments: [String?]([
        nil, "", "@format 1\n@profile arculus-fido2\n@seed 09\n# begun, never used\n",
    ]))
    func nothingToKeep(existing: String?) throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("sessions.transcript")
        if let existing { try existing.write(toFile: path, atomically: true, encoding: .utf8) }
        let headers = try Self.headers()
        let writer = try TranscriptFileWriter(path: path, headers: headers, mode: .appendSession)
        #expect(writer.session == 1)
        writer.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Transcript(headers: headers).text)
    }

    @Test("replacing, the default, keeps only the last recording")
    func replaceMode() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("session.transcript")
        _ = try Self.recordSession(to: path, seed: testSeed, date: Self.dates[0], mode: .replace)
        let second = try Self.recordSession(to: path, seed: testSeed, date: Self.dates[1], mode: .replace)
        #expect(second.file?.session == 1)
        #expect(try Transcript.load(path: path) == second.transcript)
    }

    // MARK: - Markers

    @Test("session markers: 'session N recorded …' comments start sessions; other comments do not")
    func markers() throws {
        let transcript = try Transcript.parse("""
        @format 1
        > 00A4040000
        < 6A82
        # session 2 recorded
        ! power-on
        > 00A4040000
        < 6A82
        # session 2 of the tests, recorded by hand
        # session two recorded
        # session 3 recorded 2026-01-01T00:00:00Z from somewhere
        """, validation: .complete)
        #expect(transcript.sessions == [0..<1, 1..<6, 6..<7])
    }

    @Test("a session marker ends what the last session left open, as a power event does")
    func markerClosesMessages() throws {
        let transcript = try Transcript.parse("""
        @format 1
        > 80108000010400
        < 00A16104
        # session 2 recorded
        > 00C0000004
        < 01029000
        """)
        let messages = TranscriptMessages.messages(of: transcript)
        #expect(messages.map(\.name) == ["authenticatorGetInfo", "GET RESPONSE APDU"])
        #expect(messages.map(\.isComplete) == [false, true])
    }
}
