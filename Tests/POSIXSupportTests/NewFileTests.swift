#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import POSIXSupport
import Testing
import TestSupport

/// The one way the project creates a file: what it refuses, the mode it gives, and what a failed
/// replacement leaves behind (nothing).
@Suite("NewFile: creating and replacing files")
struct NewFileTests {
    @Test("create refuses any name already taken, a dangling symbolic link included, and gives the exact mode")
    func createRefusesTakenNames() throws {
        let directory = try TemporaryDirectory()
        let taken = directory.path + "/taken"
        try NewFile.create(taken, mode: 0o600).close()
        #expect(throws: SystemCallError("open", code: EEXIST)) { try NewFile.create(taken, mode: 0o600) }
        let link = directory.path + "/link"
        #expect(symlink(directory.path + "/nowhere", link) == 0)
        #expect(throws: SystemCallError("open", code: EEXIST)) { try NewFile.create(link, mode: 0o600) }
        #expect(try POSIX.status(atPath: directory.path + "/nowhere") == nil, "nothing was made through the link")

        let previous = umask(0o077)
        defer { umask(previous) }
        let wide = try NewFile.create(directory.path + "/wide", mode: 0o644)
        defer { wide.close() }
        #expect(try POSIX.status(of: wide.descriptor).permissions == 0o644, "the umask does not narrow the mode asked for")
    }

    @Test("replace into a directory that does not exist: the open that failed, and no file anywhere")
    func replaceIntoMissingDirectory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/missing/file"
        let expected = NewFile.WriteError(path: path, failure: SystemCallError("open", code: ENOENT))
        #expect(throws: expected) { try NewFile.replace(path, with: [1, 2, 3], mode: 0o600) }
        #expect(expected.description == "cannot write \(path): open: No such file or directory")
        #expect(try listing(directory.path).isEmpty)
    }

    @Test("replace over a directory: the rename fails, the directory is untouched, no temporary file is left")
    func replaceOverDirectoryFails() throws {
        let directory = try TemporaryDirectory()
        let target = directory.path + "/target"
        #expect(mkdir(target, 0o700) == 0)
        try NewFile.create(target + "/inside", mode: 0o600).close()
        #expect(throws: NewFile.WriteError(path: target, failure: SystemCallError("rename", code: EISDIR))) {
            try NewFile.replace(target, with: [1, 2, 3], mode: 0o600, durable: false)
        }
        #expect(try listing(directory.path) == ["target"])
        #expect(try listing(target) == ["inside"])
    }

    @Test("replace puts the bytes at the name in one step, replacing a symbolic link itself rather than its target")
    func replaceReplacesLinks() throws {
        let directory = try TemporaryDirectory()
        let victim = directory.path + "/victim"
        try NewFile.replace(victim, with: Array("victim".utf8), mode: 0o644)
        let link = directory.path + "/link"
        #expect(symlink(victim, link) == 0)
        try NewFile.replace(link, with: [0xAA, 0xBB], mode: 0o600)
        #expect(try contents(victim) == Array("victim".utf8), "the link's target is untouched")
        #expect(try contents(link) == [0xAA, 0xBB])
        let status = try #require(try POSIX.status(atPath: link))
        #expect(status.kind == .regularFile && status.permissions == 0o600)
        #expect(try listing(directory.path) == ["link", "victim"])
    }

    @Test("temporary names: recognised beside their file only, and a discarded one is gone")
    func temporaryNames() throws {
        let directory = try TemporaryDirectory()
        let file = try NewFile.temporary(beside: directory.path + "/card.img", mode: 0o600)
        let name = String(file.path.split(separator: "/").last!)
        #expect(NewFile.isTemporaryName(name, for: "card.img"))
        #expect(!NewFile.isTemporaryName(name, for: "card"))
        #expect(!NewFile.isTemporaryName("card.img.tmp-ABCDEF012345", for: "card.img"), "upper-case digits are not ours")
        #expect(!NewFile.isTemporaryName("card.img.tmp-0123", for: "card.img"))
        file.discard()
        #expect(try listing(directory.path).isEmpty)
        #expect(NewFile.directory(of: "card.img") == ".")
        #expect(NewFile.directory(of: "/card.img") == "/")
        #expect(NewFile.directory(of: "a/b/card.img") == "a/b")
        #expect(throws: SystemCallError("open", code: ENOENT)) { try NewFile.syncDirectory(directory.path + "/none") }
    }

    @Test("lstat of a name under a file (not a directory) is an error, not 'nothing there'")
    func statusOfImpossiblePath() throws {
        let directory = try TemporaryDirectory()
        try NewFile.create(directory.path + "/file", mode: 0o600).close()
        #expect(try POSIX.status(atPath: directory.path + "/absent") == nil)
        #expect(throws: SystemCallError("lstat", code: ENOTDIR)) { try POSIX.status(atPath: directory.path + "/file/below") }
    }

    private func listing(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    private func contents(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        return try POSIX.readToEnd(descriptor)
    }
}
