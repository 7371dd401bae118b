@testable import ArculusCard
import FIDOWire
import Foundation
import POSIXSupport
import Testing
@testable import CTAP2
import TestSupport

// The order of the card image's file-system calls, which no test of the file's contents can see:
// an image whose temporary file is renamed before it is fsync'ed, or whose journal record is not
// fdatasync'ed before the card answers, reads back the same until the power goes. These tests
// run the image on a RecordingFileSystem and check the order, and that a failure at any step is
// an error naming the call and leaves a file that loads as before.

/// An image at state `old` on a recording file system, its log cleared.
private struct Rig {
    let directory: TemporaryDirectory
    let path: String
    let fileSystem = RecordingFileSystem()
    let file: CardImageFile

    static let old = CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 7, count: 32))

    init(tornTail: Bool = false) throws {
        directory = try TemporaryDirectory()
        path = directory.file("card.img")
        file = try CardImageFile(path: path, fileSystem: fileSystem)
        file.compactionThreshold = Int.max
        try file.save(Self.old)
        if tornTail {
            try writeFile(path, try readFile(path) + [0x00, 0x00, 0x00, 0x09, 0x4D, 0x01])
            _ = try file.load()
        }
        fileSystem.clearLog()
    }

    /// What a reopen would load from the file as it is now.
    func onDisk() throws -> CardState {
        try CardImageFormat.state(fromImage: try readFile(path), path: path)
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The position of the first logged call equal to `call`.
    func position(_ call: RecordingFileSystem.Call, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        guard let index = fileSystem.calls.firstIndex(of: call) else {
            Issue.record("no \(call) in \(fileSystem.calls)", sourceLocation: sourceLocation)
            return -1
        }
        return index
    }
}

/// A discoverable credential; a long user name makes its journal record outgrow a blank snapshot.
private func credential(_ serial: UInt64, userName: String = "user") -> ResidentCredential {
    ResidentCredential(id: [UInt8](repeating: UInt8(serial), count: 16), rpId: "example.com", rpName: nil, userId: [UInt8(serial)],
                       userName: userName, userDisplayName: nil, privateKey: [UInt8](repeating: 1, count: 32),
                       credProtect: 1, hmacSecret: false, serial: serial)
}

private func expectError(_ reason: CardImageError.Reason, path: String, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () throws(CardImageError) -> Void) {
    do {
        try body()
        Issue.record("expected \(reason)", sourceLocation: sourceLocation)
    } catch {
        #expect(error == CardImageError(path: path, reason: reason), sourceLocation: sourceLocation)
    }
}

private let ioError = "Input/output error"
private let diskFull = "No space left on device"

@Suite("Card image durability: the order of the file-system calls")
struct CardImageDurabilityTests {
    enum Compaction: String, CaseIterable, Sendable {
        /// `save`, as for a new card.
        case save
        /// A commit whose journal outgrew the snapshot.
        case commit
    }

    @Test("a compaction writes the temporary file, fsyncs it before the rename, fsyncs the directory after it",
          arguments: Compaction.allCases)
    func compactionOrder(_ compaction: Compaction) throws {
        let rig = try Rig()
        var new = Rig.old
        switch compaction {
        case .save:
            new.signatureCounter = 5
            try rig.file.save(new)
        case .commit:
            rig.file.compactionThreshold = 0
            let mutation = CardMutation.addCredential(credential(1, userName: String(repeating: "u", count: 2000)))
            new.apply(mutation)
            try rig.file.commit([mutation], onto: Rig.old)
            // The change is durable in the journal before the compaction starts.
            #expect(rig.position(.fdatasync("card.img")) < rig.position(.open("card.img.tmp", creating: true)))
        }
        let calls = rig.fileSystem.calls
        let fsync = rig.position(.fsync("card.img.tmp"))
        let rename = rig.position(.rename("card.img.tmp", to: "card.img"))
        let syncDirectory = rig.position(.fsyncDirectory)
        let writes = calls.indices.filter { if case .pwrite("card.img.tmp", _, _) = calls[$0] { true } else { false } }
        #expect(!writes.isEmpty, "the snapshot goes to the temporary file: \(calls)")
        #expect(writes.allSatisfy { $0 < fsync }, "the temporary file is written, then fsync'ed: \(calls)")
        #expect(fsync < rename, "fsync of the temporary file before the rename: \(calls)")
        #expect(rename < syncDirectory, "fsync of the directory after the rename: \(calls)")
        #expect(rig.fileSystem.unsynced.isEmpty, "not durable when save/commit returned: \(rig.fileSystem.unsynced)")
        #expect(try readFile(rig.path) == CardImageFormat.encode(new), "the image is the new snapshot alone")
        #expect(try rig.contents() == ["card.img"])
    }

    @Test("each journal append is fdatasync'ed before commit returns")
    func appendIsSyncedBeforeCommitReturns() throws {
        let rig = try Rig()
        var expected = Rig.old
        let changes: [[CardMutation]] = [[.setPINRetries(7)], [.addCredential(credential(1))],
                                         [.setSignatureCounter(3), .setPINRetries(8)], [.removeCredential(id: credential(1).id)]]
        for change in changes {
            rig.fileSystem.clearLog()
            try rig.file.commit(change, onto: expected)
            change.forEach { expected.apply($0) }
            let calls = rig.fileSystem.calls
            let write = try #require(calls.lastIndex { if case .pwrite("card.img", _, _) = $0 { true } else { false } })
            let sync = try #require(calls.lastIndex(of: .fdatasync("card.img")), "no fdatasync: \(calls)")
            #expect(write < sync, "\(change): the record is written, then fdatasync'ed: \(calls)")
            #expect(rig.fileSystem.unsynced.isEmpty, "\(change): unsynced when commit returned: \(rig.fileSystem.unsynced)")
            #expect(try rig.onDisk() == expected)
        }
    }

    @Test("a card's answer comes after its change is fdatasync'ed")
    func cardAnswersAfterTheSync() throws {
        let directory = try TemporaryDirectory()
        let fileSystem = RecordingFileSystem()
        let storage = try CardImageFile(path: directory.file("card.img"), fileSystem: fileSystem)
        let card = try VirtualCard(profile: .arculusFIDO21, storage: storage, entropy: .seeded(testSeed))
        let platform = PlatformClient(send: card.ctap2)
        /// Runs a command and checks that its change was fdatasync'ed by the time the answer came.
        func expectSynced(_ label: String, _ command: () throws -> Bool) rethrows {
            fileSystem.clearLog()
            #expect(try command(), "\(label) failed")
            #expect(fileSystem.calls.contains(.fdatasync("card.img")), "\(label): \(fileSystem.calls)")
            #expect(fileSystem.unsynced.isEmpty, "\(label): answered before \(fileSystem.unsynced) was durable")
        }
        try expectSynced("setPIN") { try platform.setPIN("1234").isOK }
        try expectSynced("wrong PIN (retry counter)") {
            try platform.call(CTAPByte.clientPIN, platform.tokenRequest("0000").0).status == CTAPStatus.pinInvalid.rawValue
        }
        let token = try platform.token("1234", permissions: PermissionBit.makeCredential).get()
        expectSynced("makeCredential rk") {
            platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [1], rk: true, token: token)).isOK
        }
        #expect(card.credentials.count == 1)
    }

    // MARK: - A failure at each step

    struct Failure: Sendable, CustomTestStringConvertible {
        let fault: RecordingFileSystem.Fault
        /// The reason expected, given the image path.
        let reason: @Sendable (_ path: String) -> String
        var loadsNew = false
        var tornTail = false

        var testDescription: String { fault.testDescription }
    }

    static let saveFailures = [
        Failure(fault: .init(call: "open", file: "card.img.tmp", code: EIO)) { _ in "cannot create a temporary file beside it: open: \(ioError)" },
        Failure(fault: .init(call: "pwrite", file: "card.img.tmp", code: ENOSPC)) { _ in "cannot write the new image: pwrite: \(diskFull)" },
        Failure(fault: .init(call: "fsync", file: "card.img.tmp", code: EIO)) { _ in "cannot write the new image: fsync: \(ioError)" },
        Failure(fault: .init(call: "flock", file: "card.img.tmp", code: ENOLCK)) { _ in
            "cannot lock the new image: flock: \(SystemCallError.text(ENOLCK))"
        },
        Failure(fault: .init(call: "rename", file: "card.img.tmp", code: EIO)) { _ in
            "cannot rename the new image into place: rename: \(ioError)"
        },
        // After the rename there is no old file to go back to: the error says the new one may not last.
        Failure(fault: .init(call: "fsync", file: "directory", code: EIO), reason: {
            "the new image is in place but a power cut may undo it; cannot sync \(String($0.dropLast("/card.img".count))): fsync: \(ioError)"
        }, loadsNew: true),
    ]

    @Test("a failing step of save throws naming the call; the image loads as before", arguments: saveFailures)
    func saveFailure(_ failure: Failure) throws {
        let rig = try Rig()
        var new = Rig.old
        new.signatureCounter = 5
        rig.fileSystem.fault = failure.fault
        expectError(.io(failure.reason(rig.path)), path: rig.path) { () throws(CardImageError) in try rig.file.save(new) }
        #expect(rig.fileSystem.fault == nil, "the fault was never reached")
        #expect(try rig.onDisk() == (failure.loadsNew ? new : Rig.old))
        #expect(try rig.contents() == ["card.img"], "a failed save leaves no temporary file")
        // The image stays usable.
        try rig.file.commit([.setPINRetries(6)], onto: failure.loadsNew ? new : Rig.old)
        #expect(try rig.onDisk().pinRetries == 6)
    }

    static let commitFailures = [
        // The length is checked before every append (never one at a stale offset).
        Failure(fault: .init(call: "fstat", file: "card.img", code: EIO)) { _ in "cannot check the file before writing: fstat: \(ioError)" },
        Failure(fault: .init(call: "pwrite", file: "card.img", code: ENOSPC)) { _ in "cannot append a change: pwrite: \(diskFull)" },
        Failure(fault: .init(call: "fdatasync", file: "card.img", code: EIO)) { _ in "cannot append a change: fdatasync: \(ioError)" },
        Failure(fault: .init(call: "ftruncate", file: "card.img", code: EIO), reason: { _ in
            "cannot truncate a torn record: ftruncate: \(ioError)"
        }, tornTail: true),
    ]

    @Test("a failing step of a journal append throws naming the call; the image loads as before", arguments: commitFailures)
    func commitFailure(_ failure: Failure) throws {
        let rig = try Rig(tornTail: failure.tornTail)
        let change = CardMutation.addCredential(credential(1))
        rig.fileSystem.fault = failure.fault
        expectError(.io(failure.reason(rig.path)), path: rig.path) { () throws(CardImageError) in try rig.file.commit([change], onto: Rig.old) }
        #expect(rig.fileSystem.fault == nil, "the fault was never reached")
        #expect(try rig.onDisk() == Rig.old, "a change the card reported as failed is in the image")
        // The retry is stored once.
        try rig.file.commit([change], onto: Rig.old)
        #expect(try rig.onDisk().residentCredentials == [credential(1)])
    }

    /// The change is durable in the journal before compacting, so the command succeeded (see
    /// CardImageFaultTests.compactionFailureAfterDurableAppend).
    /// The failure is not swallowed: it is the upkeep failure the card reports (VirtualCard's
    /// write failures, serve's stderr), naming the call, once.
    @Test("a failing step of a compaction after the append: commit succeeds, the image holds the change, the failure is reported",
          arguments: saveFailures)
    func compactionFailure(_ failure: Failure) throws {
        let fault = failure.fault
        let rig = try Rig()
        rig.file.compactionThreshold = 0
        let change = CardMutation.addCredential(credential(1, userName: String(repeating: "u", count: 2000)))
        rig.fileSystem.fault = fault
        try rig.file.commit([change], onto: Rig.old)
        #expect(rig.fileSystem.fault == nil, "the fault was never reached")
        #expect(rig.file.takeUpkeepFailure() == CardImageError(path: rig.path, reason: .io(failure.reason(rig.path))))
        #expect(rig.file.takeUpkeepFailure() == nil, "reported once")
        var new = Rig.old
        new.apply(change)
        #expect(try rig.onDisk() == new)
        #expect(try rig.contents() == ["card.img"])
        // The next change compacts; unless the failure came after the rename, when this one did.
        let alreadyCompacted = fault.file == "directory"
        try rig.file.commit([.setPINRetries(6)], onto: new)
        let image = alreadyCompacted ? CardImageFormat.encode(new) + CardImageFormat.journalRecord([.setPINRetries(6)]) : nil
        new.apply(.setPINRetries(6))
        #expect(try readFile(rig.path) == image ?? CardImageFormat.encode(new))
    }
}
