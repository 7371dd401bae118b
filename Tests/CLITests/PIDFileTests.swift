@testable import arculus_card
import Foundation
import Testing
import TestSupport

// serve --pid-file: written through a fresh temporary name and renamed into place. Finding
// (security review): its temporary file (`FILE.tmp.<pid>`) was opened with fopen("w"), which
// follows a symbolic link planted at that name and keeps the mode of a file created there.

@Suite("serve --pid-file")
struct PIDFileTests {
    @Test("the pid, 0644, replacing a link at the name (not written through); removed while it is ours, kept once it is not")
    func pidFile() throws {
        let folder = try TemporaryDirectory("arculus-pid")
        defer { withExtendedLifetime(folder) {} }  // its files are used after its last mention
        let victim = folder.file("victim")
        try Data("victim\n".utf8).write(to: URL(fileURLWithPath: victim))
        let path = folder.file("serve.pid")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        // The old temporary name, planted too.
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp.\(getpid())", withDestinationPath: victim)

        let pidFile = try PIDFile(path: path)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\(getpid())\n")
        #expect(try folder.contents() == ["serve.pid", "serve.pid.tmp.\(getpid())", "victim"])
        pidFile.remove()
        #expect(!FileManager.default.fileExists(atPath: path))

        // A newer run's pid file is not removed by the older run.
        let older = try PIDFile(path: path)
        _ = try PIDFile(path: path)
        older.remove()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("a pid file in a directory that does not exist is an error naming the call")
    func missingDirectory() throws {
        #expect(throws: SystemCallErrorDescription("open: No such file or directory")) {
            do {
                _ = try PIDFile(path: "/nonexistent-\(UUID().uuidString)/serve.pid")
            } catch {
                throw SystemCallErrorDescription("\(error)")
            }
        }
    }
}

/// A thrown error's text, to compare.
private struct SystemCallErrorDescription: Error, Equatable {
    let text: String
    init(_ text: String) { self.text = text }
}
