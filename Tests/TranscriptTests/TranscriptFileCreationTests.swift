import ArculusCard
import Foundation
import Testing
import TestSupport
@testable import Transcript

// Transcript files are created owner-only and never through a link planted at their name.
// Finding (security review): the transcript writer created its file 0644 through whatever was at
// the name (O_CREAT|O_TRUNC follows a symbolic link), and seeded transcripts — whose `@seed`
// recovers every key the card makes — were written 0644.

private struct Planted {
    let folder: TemporaryDirectory
    let victim: String
    static let victimText = Data("the victim's own content\n".utf8)

    init() throws {
        folder = try TemporaryDirectory("TranscriptTests")
        victim = folder.file("victim")
        try Self.victimText.write(to: URL(fileURLWithPath: victim))
    }

    /// A symbolic link at `name` to the victim.
    func link(_ name: String) throws -> String {
        let path = folder.file(name)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        return path
    }

    func expectVictimUntouched(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(FileManager.default.contents(atPath: victim) == Self.victimText, "written through the link", sourceLocation: sourceLocation)
    }
}

/// The type and permission bits of the entry at `path` itself (a link not followed).
private func entry(_ path: String) throws -> (type: FileAttributeType?, mode: Int) {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.type] as? FileAttributeType, (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1)
}

@Suite("Transcript files: owner-only, never through a planted link")
struct TranscriptFileCreationTests {
    @Test("a seeded recording is created 0600; a link at its name is replaced by the file, not written through")
    func recording() throws {
        let planted = try Planted()
        let path = try planted.link("session.transcript")
        do {
            let recorder = try TranscriptRecorder(card: try VirtualCard(entropy: .seeded(testSeed)), recordingTo: path)
            _ = TestHost(card: recorder).select()
        }
        planted.expectVictimUntouched()
        let created = try entry(path)
        #expect(created.type == .typeRegular && created.mode == 0o600, "\(created)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("@seed "), "a seeded recording says its seed")
        #expect(try planted.folder.contents() == ["session.transcript", "victim"], "no temporary file left")
    }

    @Test("a session is not appended through a link; a regular file is appended to, as it was")
    func appendSession() throws {
        let planted = try Planted()
        let path = try planted.link("session.transcript")
        #expect(throws: TranscriptFileError(path: path, reason: "cannot append a session to it: it is a symbolic link (give the file's own path)")) {
            _ = try TranscriptRecorder(card: try VirtualCard(entropy: .seeded(testSeed)), recordingTo: path, fileMode: .appendSession)
        }
        planted.expectVictimUntouched()
        #expect(try entry(path).type == .typeSymbolicLink)

        let own = planted.folder.file("own.transcript")
        for _ in 0..<2 {
            let recorder = try TranscriptRecorder(card: try VirtualCard(entropy: .seeded(testSeed)), recordingTo: own, fileMode: .appendSession)
            _ = TestHost(card: recorder).select()
        }
        #expect(try Transcript.load(path: own).sessions.count == 2)
        #expect(try entry(own).mode == 0o600)
    }

    @Test("Transcript.write(toFile:) writes 0600 and replaces a link at the name")
    func writeToFile() throws {
        let planted = try Planted()
        let path = try planted.link("out.transcript")
        let recorder = try TranscriptRecorder(card: try VirtualCard(entropy: .seeded(testSeed)))
        _ = TestHost(card: recorder).select()
        try recorder.transcript.write(toFile: path)
        planted.expectVictimUntouched()
        let written = try entry(path)
        #expect(written.type == .typeRegular && written.mode == 0o600, "\(written)")
        #expect(try Transcript.load(path: path).exchanges.count == 1)
        #expect(try planted.folder.contents() == ["out.transcript", "victim"])
    }

    @Test("the image snapshot beside a transcript (FILE.image) is 0600 and replaces a link at its name")
    func imageSnapshot() throws {
        let planted = try Planted()
        let image = planted.folder.file("card.img")
        _ = try VirtualCard(imageAt: image)
        let transcript = planted.folder.file("session.transcript")
        _ = try planted.link("session.transcript.image")
        #expect(try TranscriptRecorder.imageReference(forImageAt: image, recordingTo: transcript) == "session.transcript.image")
        planted.expectVictimUntouched()
        let snapshot = try entry(transcript + ".image")
        #expect(snapshot.type == .typeRegular && snapshot.mode == 0o600, "\(snapshot)")
        #expect(FileManager.default.contents(atPath: transcript + ".image") == FileManager.default.contents(atPath: image))
    }
}
