import ArculusCard
import Foundation
import Testing
import Transcript
import FIDOWire
import TestSupport

@Suite("Transcript recorder")
struct TranscriptRecorderTests {
    @Test("headers come from the card: profile, seed, blank image, ATR, front switches")
    func headers() throws {
        let date = try #require(ISO8601DateFormatter().date(from: "2026-03-04T05:06:07Z"))
        let card = try VirtualCard(profile: .arculusFIDO2, frontOptions: CardFront.Options(busyFirst: true), entropy: .seeded([0xC0, 0xFF, 0xEE]))
        let recorder = try TranscriptRecorder(card: card, source: "unit test", date: date)
        #expect(recorder.transcript.headers.map { "@\($0.name) \($0.value)" } == [
            "@format 1", "@profile arculus-fido2", "@seed C0FFEE", "@image blank", "@atr 3B8A8001417263756C7573456D7519",
            "@front busy-first", "@source unit test", "@date 2026-03-04T05:06:07Z",
        ])
        let unseeded = try TranscriptRecorder(card: try VirtualCard())
        #expect(unseeded.transcript.seed == nil)
        #expect(unseeded.transcript.header("front") == nil)
        #expect(unseeded.transcript.header("profile") == "arculus-fido21")
    }

    @Test("every exchange and power event is recorded and passed through; CTAP, U2F and SELECT lines get notes")
    func recordsEverything() throws {
        let card = try VirtualCard(entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card)
        let host = TestHost(card: recorder)
        _ = host.select()
        _ = try host.ctapBody(.getInfo)
        _ = host.ctap(.clientPIN, [1: 2, 2: 1])
        _ = host.ctap(raw: [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(.map(TranscriptMessagesTests.longMakeCredential())))
        recorder.reset()
        #expect(!card.front.isAppletSelected, "the reset reached the card")
        recorder.powerOff()
        recorder.powerOn()
        _ = host.select()
        _ = host.exchange(cla: 0x00, ins: 0x03, p1: 0x00, p2: 0x00, data: [])
        recorder.record(.removed)
        recorder.comment("the end")

        let entries = recorder.transcript.entries
        let notes = entries.compactMap { entry -> String? in
            if case .exchange(_, _, let note) = entry { return note ?? "-" }
            return nil
        }
        #expect(notes == ["SELECT FIDO", "authenticatorGetInfo", "authenticatorClientPIN (getPINRetries)",
                          "authenticatorMakeCredential (chained)", "authenticatorMakeCredential (continued)",
                          "authenticatorMakeCredential (last piece)", "-", "-", "-", "SELECT FIDO", "U2F_VERSION"])
        #expect(entries.filter { if case .event = $0 { return true }; return false }
                == [.event(.reset), .event(.powerOff), .event(.powerOn), .event(.removed)])
        #expect(entries.last == .comment("the end"))
        if case .exchange(_, let response, _) = entries[entries.count - 3] {
            #expect(response == Array("U2F_V2".utf8) + [0x90, 0x00])
        } else {
            Issue.record("expected the U2F_VERSION exchange")
        }
    }

    @Test("a recording file has every complete exchange the moment it happened")
    func appendsAsItGoes() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("live.transcript")
        let card = try VirtualCard(entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card, recordingTo: path)
        // Before its first exchange the recording is read as text only: it cannot be replayed yet.
        #expect(try Transcript.load(path: path, validation: .syntax).headers == recorder.transcript.headers)
        let host = TestHost(card: recorder)
        recorder.powerOn()
        #expect(try Transcript.load(path: path, validation: .syntax) == recorder.transcript)
        _ = host.select()
        #expect(try Transcript.load(path: path) == recorder.transcript)
        _ = host.ctap(raw: [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(.map(TranscriptMessagesTests.longMakeCredential())))
        let onDisk = try Transcript.load(path: path)
        #expect(onDisk == recorder.transcript)
        #expect(onDisk.exchanges.count > 4)
        #expect(recorder.fileError == nil)
        // The file alone replays: it is the whole session.
        #expect(try TranscriptReplay.verify(fileAt: path).passed)
    }

    @Test("a write that fails is kept as fileError; recording goes on in memory")
    func writeFailure() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("closed.transcript")
        let card = try VirtualCard()
        let recorder = try TranscriptRecorder(card: card, recordingTo: path)
        recorder.file?.close()
        _ = TestHost(card: recorder).select()
        #expect(recorder.fileError == TranscriptFileError(path: path, reason: "the file is closed"))
        #expect(recorder.transcript.exchanges.count == 1)
    }

    @Test("a recording file that cannot be created is an error naming it")
    func unwritable() throws {
        #expect(throws: TranscriptFileError(path: "/nonexistent/dir/x.transcript", reason: "cannot create: No such file or directory")) {
            try TranscriptRecorder(card: try VirtualCard(), recordingTo: "/nonexistent/dir/x.transcript")
        }
    }

    @Test("image reference: no image or a missing file is blank; an existing image is copied beside the transcript, anything else refused")
    func imageReference() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let transcript = folder.file("session.transcript")
        #expect(try TranscriptRecorder.imageReference(forImageAt: nil, recordingTo: transcript) == "blank")
        #expect(try TranscriptRecorder.imageReference(forImageAt: folder.file("none.image"), recordingTo: transcript) == "blank")
        let image = folder.file("card.image")
        let bytes = Data(CardImageFormat.encode(CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 1, count: 32))))
        try bytes.write(to: URL(fileURLWithPath: image))
        #expect(try TranscriptRecorder.imageReference(forImageAt: image, recordingTo: transcript) == "session.transcript.image")
        #expect(FileManager.default.contents(atPath: transcript + ".image") == bytes)
        // Only a card image is copied: a device is not read without end, a foreign file not copied.
        let other = folder.file("other.transcript")
        #expect(throws: TranscriptFileError(path: other, reason: "cannot copy the card image: /dev/zero is a character device, not a card image file; refusing to use it")) {
            try TranscriptRecorder.imageReference(forImageAt: "/dev/zero", recordingTo: other)
        }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.file("junk.image")))
        #expect(throws: TranscriptFileError(path: other, reason: "cannot copy the card image: \(folder.file("junk.image")) is not an Arculus card image (wrong magic number); refusing to overwrite it")) {
            try TranscriptRecorder.imageReference(forImageAt: folder.file("junk.image"), recordingTo: other)
        }
        #expect(!FileManager.default.fileExists(atPath: other + ".image"))
    }

    @Test("a session on a card image replays from the snapshot, however the session changed the image")
    func imageSnapshotReplays() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let image = folder.file("card.image")
        let transcriptPath = folder.file("session.transcript")
        do {
            // A card with a credential on it already.
            let card = try VirtualCard(imageAt: image, entropy: .seeded([1]))
            _ = TestHost(card: card).select()
            _ = try TestHost(card: card).ctapBody(.makeCredential, Requests.makeCredential(user: "old", userId: [9], rk: true))
        }
        let reference = try TranscriptRecorder.imageReference(forImageAt: image, recordingTo: transcriptPath)
        let card = try VirtualCard(imageAt: image, entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card, image: reference, recordingTo: transcriptPath)
        let host = TestHost(card: recorder)
        _ = host.select()
        let assertion = try host.ctapBody(.getAssertion, Requests.getAssertion())
        #expect(assertion[int: 4]?.mapValue?[text: "id"] == .bytes([9]), "the credential made before the recording")
        _ = try host.ctapBody(.makeCredential, Requests.makeCredential(user: "new", userId: [10], rk: true))
        #expect(card.credentials.count == 2)
        #expect(try Transcript.load(path: transcriptPath).header("image") == "session.transcript.image")
        let result = try TranscriptReplay.verify(fileAt: transcriptPath)
        #expect(result.exchangesReplayed == recorder.transcript.exchanges.count)
    }
}
