@testable import ArculusCard
import Foundation
import POSIXSupport
import Testing
@testable import CTAP2
import TestSupport

// The image's lock is the image file's own (flock on its descriptor), so every path to one image
// meets one lock. Finding (security review): the lock was `path + ".lock"`, so the same image
// through a symbolic link or a hard link was opened while it was served; five `image
// credentials add` through `b.img → a.img` reported ok, and on reopen `a.img` had 0 credentials
// (serve appended at its cached offset over the other writer's records), and a compaction
// replaced the link with a regular file, forking the card.

private func user(_ number: UInt8) -> CredentialUser { CredentialUser(id: [number], name: "user\(number)") }

private func expectLocked(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(throws: CardImageError(path: path, reason: .locked), sourceLocation: sourceLocation) {
        _ = try VirtualCard(imageAt: path)
    }
    #expect("\(CardImageError(path: path, reason: .locked))" == "card image \(path) is in use by another process (it holds the image's lock)")
}

@Suite("Card image lock: one lock per file, whatever the path")
struct CardImageLockTests {
    @Test("a symbolic link to an open image is refused as in use; every acknowledged credential is there on reopen, and the link stays a link")
    func symbolicLink() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.img")
        let link = directory.file("b.img")
        var added: [[UInt8]] = []
        do {
            let card = try VirtualCard(imageAt: path)
            try card.setPIN("123456")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "a.img")
            for number: UInt8 in 1...5 {
                expectLocked(link)
                expectLocked(directory.path + "/../" + URL(fileURLWithPath: directory.path).lastPathComponent + "/a.img")
                added.append(try card.addCredential(rpId: "example.com", user: user(number)).id)
            }
            try card.setPINRetries(4)
            // A compaction (a deleted credential's key must leave the file).
            let extra = try card.addCredential(rpId: "example.com", user: user(9))
            try card.removeCredential(id: extra.id)
            try card.setSignatureCounter(10)
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "a.img", "the link was replaced")
        let reopened = try VirtualCard(imageAt: link)
        #expect(reopened.credentials.map(\.id) == added)
        #expect(reopened.pinState.retries == 4)
        #expect(reopened.pinState.signatureCounter == 10)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType == .typeRegular)
    }

    @Test("a card opened through a link is compacted beside the image: the link stays a link, the image is the new file")
    func compactionThroughALink() throws {
        let directory = try TemporaryDirectory()
        let images = directory.file("images")
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: false)
        let path = images + "/card.img"
        let link = directory.file("card.img")
        _ = try VirtualCard(imageAt: path)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let storage = try CardImageFile(path: link)
        #expect(storage.location == path)
        let card = try VirtualCard(profile: .arculusFIDO21, storage: storage)
        let alice = try card.addCredential(rpId: "example.com", user: user(1))
        // Deleting a credential rewrites the image (its key must leave the file).
        try card.removeCredential(id: try card.addCredential(rpId: "example.com", user: user(2)).id)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == path)
        #expect(try directory.contents() == ["card.img", "images"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: images) == ["card.img"])
        #expect(try CardImageFormat.state(fromImage: try readFile(path), path: path).residentCredentials.map(\.id) == [alice.id])
        #expect(try readFile(path) == CardImageFormat.encode(card.authenticator.state), "compacted: one snapshot")
    }

    @Test("a hard link made while the image is open: in use; afterwards an image with two names is refused and not compacted, and nothing is forked")
    func hardLink() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.img")
        let other = directory.file("c.img")
        var reported: [CardWriteFailure] = []
        let alice: CredentialRecord
        do {
            let card = try VirtualCard(imageAt: path)
            card.onWriteFailure = { reported.append($0) }
            #expect(link(path, other) == 0)
            expectLocked(other)
            alice = try card.addCredential(rpId: "example.com", user: user(1))
            // Deleting a credential rewrites the image (its key must leave the file); with two
            // names that would leave the other on the old card, so the image is not rewritten.
            let bob = try card.addCredential(rpId: "example.com", user: user(2))
            try card.removeCredential(id: bob.id)
            #expect(reported.map(\.description) == [
                "credential deletion was stored, but compacting the image after it failed: card image \(path) has 2 names (hard links); "
                    + "compacting it would leave the others on the old card: remove the other names first",
            ])
            #expect(reported.first?.changeKept == true)
            #expect(try FileStatus.of(path) == FileStatus.of(other), "one file, two names")
        }
        for name in [path, other] {
            #expect(throws: CardImageError(path: name, reason: .hardLinked(2))) { _ = try VirtualCard(imageAt: name) }
        }
        #expect(unlink(other) == 0)
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.credentials.map(\.id) == [alice.id])
    }

    /// The race an `flock` on the file needs its second half for: an opener opens the image, the
    /// holder compacts (a new file takes the name, the old one's lock is let go) and the opener
    /// then gets the lock of the old file, which no longer has the name.
    @Test("an opener that locks a file a compaction has just replaced opens the new one, and finds it in use")
    func openerRacingACompaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        do {
            let holder = try CardImageFile(path: path)
            var state = CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 3, count: 32))
            try holder.save(state)
            let fileSystem = RecordingFileSystem()
            var compactions = 0
            fileSystem.beforeLock = { _ in
                guard compactions == 0 else { return }
                compactions += 1
                state.signatureCounter = 7
                try? holder.save(state)
            }
            #expect(throws: CardImageError(path: path, reason: .locked)) { _ = try CardImageFile(path: path, fileSystem: fileSystem) }
            #expect(compactions == 1)
            let opens = fileSystem.calls.filter { if case .open("card.img", creating: false) = $0 { true } else { false } }
            #expect(opens.count == 2, "the opener tried again on the new file: \(fileSystem.calls)")
            #expect(fileSystem.calls.filter { $0.name == "flock" }.count == 2)
        }
        let reopened = try CardImageFile(path: path)
        #expect(try reopened.load()?.signatureCounter == 7)
    }
}

extension FileStatus {
    /// The status of the file at `path` (symbolic links not followed), or a test failure.
    static func of(_ path: String) throws -> FileStatus {
        guard let status = try POSIX.status(atPath: path) else { throw TestFailure("no file at \(path)") }
        return status
    }
}
