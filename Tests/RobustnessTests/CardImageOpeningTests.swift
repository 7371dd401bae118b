@testable import ArculusCard
import Foundation
import POSIXSupport
import Testing
@testable import CTAP2
import TestSupport

// What opening a card image refuses, and what it never does: follow a link someone planted,
// keep another user's mode or owner, create a file beside something that is not a card image,
// or leave a file behind when it refuses.
//
// Findings (security review): in a world-writable directory (this machine kind has
// fs.protected_symlinks=0), `nobody` planted `card.img.tmp → a root-owned file`; root's `image
// create` overwrote the victim with the image and `card.img` became nobody's link to it; a
// pre-created empty 0666 `card.img.tmp` gave `-rw-rw-rw- nobody card.img`.
// `ARCULUS_FIDO_CARD_IMAGE=/dev/zero` grew to 1.5 GB; `=/etc/passwd` left `/etc/passwd.lock`.
// From a new user's first hour: a read-only or missing directory was "cannot lock ….lock: open:
// Permission denied", every refused image left a `.lock` behind, and an empty file was refused
// as damaged.

/// `nobody`'s user and group ids.
private let nobody: (uid: uid_t, gid: gid_t) = {
    guard let entry = getpwnam("nobody") else { return (65534, 65534) }
    return (entry.pointee.pw_uid, entry.pointee.pw_gid)
}()

private let runsAsRoot = geteuid() == 0

/// A directory as a shared one can be: owned by `nobody`, writable by everyone, no sticky bit;
/// beside it a root-owned victim file.
private struct SharedDirectory {
    let scratch: TemporaryDirectory
    let path: String
    let victim: String
    static let victimText = Array("the victim's own content\n".utf8)

    init() throws {
        scratch = try TemporaryDirectory()
        path = scratch.file("shared")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(chmod(path, 0o777) == 0)
        #expect(chown(path, nobody.uid, nobody.gid) == 0)
        victim = scratch.file("victim")
        try writeFile(victim, Self.victimText)
        #expect(chmod(victim, 0o644) == 0)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// A symbolic link `name → target` that `nobody` made.
    func plantLink(_ name: String, to target: String) {
        #expect(symlink(target, file(name)) == 0)
        #expect(lchown(file(name), nobody.uid, nobody.gid) == 0)
    }

    /// A file `nobody` made, mode 0666, holding `bytes`.
    func plantFile(_ name: String, _ bytes: [UInt8] = []) throws {
        try writeFile(file(name), bytes)
        #expect(chmod(file(name), 0o666) == 0)
        #expect(chown(file(name), nobody.uid, nobody.gid) == 0)
    }

    func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    /// The victim is as it was: content, mode, owner, a regular file.
    func expectVictimUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try readFile(victim) == Self.victimText, sourceLocation: sourceLocation)
        let status = try FileStatus.of(victim)
        #expect(status.kind == .regularFile && status.permissions == 0o644 && status.owner == 0, "\(status)",
                sourceLocation: sourceLocation)
    }

    /// `name` is a regular file of this process's user, mode 0600.
    func expectOurs(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try FileStatus.of(file(name))
        #expect(status.kind == .regularFile, "\(name) is \(status.kind.rawValue)", sourceLocation: sourceLocation)
        #expect(status.owner == geteuid(), "\(name) belongs to uid \(status.owner)", sourceLocation: sourceLocation)
        #expect(status.permissions == 0o600, "\(name) has mode \(String(status.permissions, radix: 8))", sourceLocation: sourceLocation)
    }
}

private func expectRefused(_ reason: CardImageError.Reason, _ path: String, message: String? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try VirtualCard(imageAt: path)
        Issue.record("\(path) was opened", sourceLocation: sourceLocation)
    } catch let error as CardImageError {
        #expect(error == CardImageError(path: path, reason: reason), sourceLocation: sourceLocation)
        if let message { #expect(error.description == message, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected \(reason), got \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Card image opening: only card images, no planted file followed, nothing left behind")
struct CardImageOpeningTests {
    // MARK: - A shared directory

    @Test("planted links and 0666 files in a world-writable directory: nothing followed, the image is ours and 0600, the victim untouched",
          .enabled(if: runsAsRoot, "needs root to plant nobody's files"))
    func plantedFiles() throws {
        let shared = try SharedDirectory()
        // The names the old code used (`.tmp`, `.lock`), and a name of the new temporary files' shape.
        shared.plantLink("card.img.lock", to: shared.victim)
        shared.plantLink("card.img.tmp-000000000000", to: shared.victim)
        try shared.plantFile("card.img.tmp")
        let planted = try shared.contents()
        let path = shared.file("card.img")
        do {
            let card = try VirtualCard(imageAt: path)
            try card.setPIN("123456")
            (card.storage as? CardImageFile)?.compactionThreshold = 0
            for number: UInt8 in 1...3 {
                _ = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [number]))
            }
            try card.setPIN("654321")
        }
        try shared.expectVictimUntouched()
        try shared.expectOurs("card.img")
        #expect(try shared.contents() == (planted + ["card.img"]).sorted(), "no temporary file left, none removed")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: shared.file("card.img.lock")) == shared.victim)
        let temporary = try FileStatus.of(shared.file("card.img.tmp"))
        #expect(temporary.size == 0 && temporary.permissions == 0o666 && temporary.owner == nobody.uid)
        #expect(try VirtualCard(imageAt: path).credentials.count == 3)
    }

    @Test("an empty 0666 image nobody made becomes a new card that is ours and 0600", .enabled(if: runsAsRoot, "needs root"))
    func plantedEmptyImage() throws {
        let shared = try SharedDirectory()
        try shared.plantFile("card.img")
        let card = try VirtualCard(imageAt: shared.file("card.img"))
        try shared.expectOurs("card.img")
        #expect(try CardImageFormat.state(fromImage: readFile(shared.file("card.img")), path: "card.img") == card.authenticator.state)
        #expect(try shared.contents() == ["card.img"])
    }

    @Test("an image path that is nobody's link to a root file is refused; the file and the directory stay as they were",
          .enabled(if: runsAsRoot, "needs root"))
    func plantedImageLink() throws {
        let shared = try SharedDirectory()
        shared.plantLink("card.img", to: shared.victim)
        expectRefused(.notACardImage, shared.file("card.img"))
        #expect(throws: CardImageError(path: shared.file("card.img"), reason: .alreadyExists)) {
            _ = try CardImageFile(path: shared.file("card.img"), opening: .createNew)
        }
        try shared.expectVictimUntouched()
        #expect(try shared.contents() == ["card.img"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.scratch.path).sorted() == ["shared", "victim"])
    }

    @Test("a link to a file that does not exist is not created through", .enabled(if: runsAsRoot, "needs root"))
    func danglingLink() throws {
        let shared = try SharedDirectory()
        let target = shared.scratch.file("would-be-created.img")
        shared.plantLink("card.img", to: target)
        expectRefused(.danglingSymbolicLink, shared.file("card.img"), message:
            "\(shared.file("card.img")) is a symbolic link to a file that does not exist; a new card image is not created through a link")
        #expect(throws: CardImageError(path: shared.file("card.img"), reason: .alreadyExists)) {
            _ = try CardImageFile(path: shared.file("card.img"), opening: .createNew)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try shared.contents() == ["card.img"])
    }

    // MARK: - Not a card image

    @Test("a device, a directory and a FIFO are refused before anything is read or locked; nothing is created beside them")
    func notRegularFiles() throws {
        expectRefused(.notARegularFile("a character device"), "/dev/zero",
                      message: "/dev/zero is a character device, not a card image file; refusing to use it")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.hasPrefix("zero.") }.isEmpty)
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("folder"), withIntermediateDirectories: false)
        expectRefused(.notARegularFile("a directory"), directory.file("folder"))
        #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
        expectRefused(.notARegularFile("a FIFO"), directory.file("fifo"))
        #expect(try directory.contents() == ["fifo", "folder"])
    }

    @Test("a foreign file (an /etc/passwd) or an image of an unknown version is refused, unchanged, with nothing beside it")
    func foreignFiles() throws {
        let directory = try TemporaryDirectory()
        let passwd = Array("root:x:0:0:root:/root:/bin/bash\n".utf8)
        try writeFile(directory.file("passwd"), passwd)
        expectRefused(.notACardImage, directory.file("passwd"),
                      message: "\(directory.file("passwd")) is not an Arculus card image (wrong magic number); refusing to overwrite it")
        #expect(try readFile(directory.file("passwd")) == passwd)
        let future = Array("ARCIMG".utf8) + [0x00, 0x09] + [UInt8](repeating: 0x55, count: 40)
        try writeFile(directory.file("future.img"), future)
        expectRefused(.unsupportedVersion(9), directory.file("future.img"))
        #expect(try readFile(directory.file("future.img")) == future)
        try writeFile(directory.file("short"), Array("ARC".utf8))
        expectRefused(.notACardImage, directory.file("short"))
        #expect(try directory.contents() == ["future.img", "passwd", "short"])
    }

    @Test("a file larger than any card image is refused before it is read")
    func tooLarge() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("huge.img")
        try writeFile(path, CardImageFormat.encode(CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 1, count: 32))))
        let size = CardImageFormat.maximumImageLength + 1
        #expect(truncate(path, off_t(size)) == 0)  // sparse: no disk space used
        expectRefused(.tooLarge(size), path,
                      message: "\(path) is \(size) bytes, more than any card image (at most \(CardImageFormat.maximumImageLength)); refusing to read it")
        #expect(try directory.contents() == ["huge.img"])
    }

    // MARK: - New cards, and what a refusal leaves

    @Test("an empty regular file (touch card.img) becomes a new card")
    func emptyFileIsANewCard() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let state: CardState
        do {
            let card = try VirtualCard(imageAt: path)
            #expect(card.credentials.isEmpty && !card.pinState.isSet)
            try card.setPIN("123456")
            state = card.authenticator.state
        }
        #expect(try VirtualCard(imageAt: path).authenticator.state == state)
        #expect(try FileStatus.of(path).permissions == 0o600)
        #expect(try directory.contents() == ["card.img"])
    }

    @Test("a new image in a directory that does not exist: a message that says so, and nothing made")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nowhere/card.img")
        expectRefused(.io("cannot create it: there is no directory \(directory.file("nowhere")) (open: No such file or directory)"), path,
                      message: "card image \(path): cannot create it: there is no directory \(directory.file("nowhere")) (open: No such file or directory)")
        #expect(try directory.contents() == [])
    }

    /// Root may write anywhere, so the permission errors are injected here (the command-line test
    /// `test_image_files.py` makes them real, as `nobody`).
    @Test("a directory this process cannot write, and an image it cannot write: one clear line each, nothing left behind")
    func permissionErrors() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let fileSystem = RecordingFileSystem()
        fileSystem.fault = .init(call: "open", file: "card.img", code: EACCES)
        #expect(throws: CardImageError(path: path, reason: .io(
            "cannot create it: the directory \(directory.path) is not writable by this process (open: Permission denied)"))) {
            _ = try CardImageFile(path: path, fileSystem: fileSystem)
        }
        #expect(try directory.contents() == [])

        _ = try VirtualCard(imageAt: path)
        let image = try readFile(path)
        fileSystem.fault = .init(call: "open", file: "card.img", code: EACCES)
        do {
            _ = try CardImageFile(path: path, fileSystem: fileSystem)
            Issue.record("an image it cannot write was opened")
        } catch {
            #expect(error == CardImageError(path: path, reason: .notWritable("open: Permission denied")))
            #expect(error.description == "card image \(path) cannot be written by this process (open: Permission denied); "
                + "the card stores every change in it: make it writable, or use a copy")
        }
        #expect(try readFile(path) == image)
        #expect(try directory.contents() == ["card.img"])
    }

    @Test("a new image whose card cannot be made is removed again; a refusal as in use leaves no file beside the image")
    func refusalsLeaveNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let fileSystem = RecordingFileSystem()
        fileSystem.fault = .init(call: "open", file: "card.img.tmp", code: ENOSPC)
        #expect(throws: CardImageError(path: path, reason: .io("cannot create a temporary file beside it: open: No space left on device"))) {
            _ = try VirtualCard(profile: .arculusFIDO21, storage: try CardImageFile(path: path, fileSystem: fileSystem))
        }
        #expect(try directory.contents() == [], "the empty file made for the card is gone")

        let card = try VirtualCard(imageAt: path)
        expectRefused(.locked, path)
        expectRefused(.locked, directory.file("./card.img"))
        #expect(try directory.contents() == ["card.img"])
        withExtendedLifetime(card) {}
        // A file this open did not create is never removed, even when it stays empty.
        let empty = directory.file("empty.img")
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        do {
            let storage = try CardImageFile(path: empty)
            #expect(try storage.load() == nil)
        }
        #expect(try directory.contents() == ["card.img", "empty.img"])
    }

    @Test("an image left at an offset another writer moved is not appended to: the length is checked first")
    func lengthCheckedBeforeAppending() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let storage = try CardImageFile(path: path)
        let card = try VirtualCard(profile: .arculusFIDO21, storage: storage)
        let before = try readFile(path)
        // Another program appends (it ignores the lock, as a careless copy does).
        let other = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try other.seekToEnd()
        try other.write(contentsOf: Data(CardImageFormat.journalRecord([.setSignatureCounter(99)])))
        try other.close()
        let grown = try readFile(path)
        var reported: [CardWriteFailure] = []
        card.onWriteFailure = { reported.append($0) }
        #expect(throws: StateControlError.self) { try card.setPINRetries(3) }
        #expect(reported.map(\.reason) == ["card image \(path): the file is \(grown.count) bytes, not the \(before.count) this process left: "
            + "another program wrote to it; not writing (reopen the image to see what it holds)"])
        #expect(try readFile(path) == grown, "nothing written over the other writer's record")
    }
}
