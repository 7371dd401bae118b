#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import POSIXSupport
import Testing
import TestSupport

/// A file read whole: its bytes, or why not in the user's terms.
@Suite("InputFile: reading a file a user names")
struct InputFileTests {
    @Test("the bytes of a file, a link followed; text decoded as UTF-8")
    func reads() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/profile.json"
        try NewFile.replace(path, with: Array("{}\n".utf8), mode: 0o600)
        #expect(try InputFile.read(path) == Array("{}\n".utf8))
        #expect(symlink(path, directory.path + "/link") == 0)
        #expect(try InputFile.text(directory.path + "/link") == "{}\n")
        try NewFile.replace(path, with: [0x41, 0xFF, 0x42], mode: 0o600)
        #expect(try InputFile.text(path) == "A\u{FFFD}B", "a byte that is no UTF-8 is shown, for the parser to name the line")
    }

    @Test("missing, a directory, a file for a directory, too large: each said as such")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/missing"
        #expect(throws: InputFileError(path: missing, reason: "there is no such file")) { try InputFile.read(missing) }
        #expect(throws: InputFileError(path: directory.path, reason: "it is a directory, not a file")) { try InputFile.read(directory.path) }
        let file = directory.path + "/file"
        try NewFile.replace(file, with: Array(repeating: 0x30, count: 100), mode: 0o600)
        #expect(throws: InputFileError(path: file + "/x", reason: "a directory on its path is a file")) { try InputFile.read(file + "/x") }
        #expect(throws: InputFileError(path: file, reason: "it is 100 bytes, more than the 10 this reads")) { try InputFile.read(file, limit: 10) }
        #expect("\(InputFileError(path: missing, reason: "there is no such file"))" == "cannot read \(missing): there is no such file")
    }

    @Test("a file this process may not read (not as root, who may read anything)")
    func unreadable() throws {
        guard getuid() != 0 else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/secret"
        try NewFile.replace(path, with: [1, 2, 3], mode: 0o000)
        #expect(throws: InputFileError(path: path, reason: "this process may not read it (permission denied)")) { try InputFile.read(path) }
    }

    @Test("a pipe is read to its end, within the limit")
    func readsAPipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        try POSIX.writeAll(ends[1], Array("ignore x\n".utf8))
        close(ends[1])
        defer { close(ends[0]) }
        #expect(try InputFile.text("/dev/fd/\(ends[0])") == "ignore x\n")
    }
}
