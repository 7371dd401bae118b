import POSIXSupport
import Testing
@testable import CTAP2
@testable import ArculusCard

/// The card image's file system as a test sees it: every call goes to the real file system, is
/// logged in order, and any one can be made to fail. It also tracks which files hold data not yet
/// made durable (written, not yet fsync'ed or fdatasync'ed).
final class RecordingFileSystem: CardImageFileSystem {
    /// One call, with files named by their last path component and the directory as "directory".
    enum Call: Equatable, CustomStringConvertible {
        case open(String, creating: Bool)
        case pwrite(String, offset: Int, count: Int)
        case ftruncate(String, length: Int)
        case fdatasync(String)
        case fsync(String)
        case close(String)
        case rename(String, to: String)
        case fsyncDirectory
        case readFile(String)
        case unlink(String)
        case lock(String)
        case unlock(String)

        /// The system call's name, as a ``SystemCallError`` names it.
        var name: String {
            switch self {
            case .open: "open"
            case .pwrite: "pwrite"
            case .ftruncate: "ftruncate"
            case .fdatasync: "fdatasync"
            case .fsync, .fsyncDirectory: "fsync"
            case .close: "close"
            case .rename: "rename"
            case .readFile: "read"
            case .unlink: "unlink"
            case .lock: "flock"
            case .unlock: "flock"
            }
        }

        /// The file the call is on.
        var file: String {
            switch self {
            case .open(let file, _), .pwrite(let file, _, _), .ftruncate(let file, _), .fdatasync(let file),
                 .fsync(let file), .close(let file), .rename(let file, _), .readFile(let file), .unlink(let file),
                 .lock(let file), .unlock(let file):
                file
            case .fsyncDirectory:
                "directory"
            }
        }

        var description: String {
            switch self {
            case .open(let file, let creating): "open(\(file)\(creating ? ", create" : ""))"
            case .pwrite(let file, let offset, let count): "pwrite(\(file), \(count) bytes at \(offset))"
            case .ftruncate(let file, let length): "ftruncate(\(file), \(length))"
            case .fdatasync(let file): "fdatasync(\(file))"
            case .fsync(let file): "fsync(\(file))"
            case .close(let file): "close(\(file))"
            case .rename(let from, let to): "rename(\(from) → \(to))"
            case .fsyncDirectory: "fsync(directory)"
            case .readFile(let file): "read(\(file))"
            case .unlink(let file): "unlink(\(file))"
            case .lock(let file): "lock(\(file))"
            case .unlock(let file): "unlock(\(file))"
            }
        }
    }

    /// A call to fail once: the first call named `call` (a system call's name) on `file` fails
    /// with `code`. A failing pwrite first writes half of its bytes, as a disk filling up does.
    struct Fault: Sendable, CustomTestStringConvertible {
        let call: String
        let file: String
        let code: Int32

        var testDescription: String { "\(call)(\(file)) fails: \(SystemCallError.text(code))" }
    }

    private let real = POSIXFileSystem()
    private(set) var calls: [Call] = []
    /// Files written since their last fsync or fdatasync.
    private(set) var unsynced: Set<String> = []
    var fault: Fault?
    private var names: [Int32: String] = [:]

    /// Forgets the calls logged so far.
    func clearLog() { calls = [] }

    /// Logs `call`, and throws the armed fault if it matches.
    private func record(_ call: Call) throws(SystemCallError) {
        calls.append(call)
        if let fault, fault.call == call.name, fault.file == call.file {
            self.fault = nil
            throw SystemCallError(call.name, code: fault.code)
        }
    }

    private static func name(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    func open(_ path: String, creating: Bool) throws(SystemCallError) -> Int32 {
        try record(.open(Self.name(path), creating: creating))
        let descriptor = try real.open(path, creating: creating)
        names[descriptor] = Self.name(path)
        if creating { unsynced.insert(Self.name(path)) }
        return descriptor
    }

    func pwrite(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemCallError) {
        let file = names[descriptor] ?? "?"
        unsynced.insert(file)
        do {
            try record(.pwrite(file, offset: offset, count: bytes.count))
        } catch {
            try real.pwrite(descriptor, Array(bytes.prefix(bytes.count / 2)), at: offset)
            throw error
        }
        try real.pwrite(descriptor, bytes, at: offset)
    }

    func ftruncate(_ descriptor: Int32, to length: Int) throws(SystemCallError) {
        let file = names[descriptor] ?? "?"
        try record(.ftruncate(file, length: length))
        unsynced.insert(file)
        try real.ftruncate(descriptor, to: length)
    }

    func fdatasync(_ descriptor: Int32) throws(SystemCallError) {
        let file = names[descriptor] ?? "?"
        try record(.fdatasync(file))
        try real.fdatasync(descriptor)
        unsynced.remove(file)
    }

    func fsync(_ descriptor: Int32) throws(SystemCallError) {
        let file = names[descriptor] ?? "?"
        try record(.fsync(file))
        try real.fsync(descriptor)
        unsynced.remove(file)
    }

    func close(_ descriptor: Int32) {
        calls.append(.close(names[descriptor] ?? "?"))
        names[descriptor] = nil
        real.close(descriptor)
    }

    func rename(_ source: String, to destination: String) throws(SystemCallError) {
        try record(.rename(Self.name(source), to: Self.name(destination)))
        try real.rename(source, to: destination)
        if unsynced.remove(Self.name(source)) != nil { unsynced.insert(Self.name(destination)) }
        unsynced.insert("directory")
    }

    func fsyncDirectory(_ path: String) throws(SystemCallError) {
        try record(.fsyncDirectory)
        try real.fsyncDirectory(path)
        unsynced.remove("directory")
    }

    func readFile(_ path: String) throws(SystemCallError) -> [UInt8]? {
        try record(.readFile(Self.name(path)))
        return try real.readFile(path)
    }

    func unlink(_ path: String) {
        calls.append(.unlink(Self.name(path)))
        unsynced.remove(Self.name(path))
        real.unlink(path)
    }

    func lock(_ path: String) throws(SystemCallError) -> Int32? {
        try record(.lock(Self.name(path)))
        let descriptor = try real.lock(path)
        if let descriptor { names[descriptor] = Self.name(path) }
        return descriptor
    }

    func unlock(_ descriptor: Int32) {
        calls.append(.unlock(names[descriptor] ?? "?"))
        names[descriptor] = nil
        real.unlock(descriptor)
    }
}
