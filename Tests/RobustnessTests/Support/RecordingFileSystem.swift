import POSIXSupport
import Testing
@testable import CTAP2
@testable import ArculusCard

/// The card image's file system as a test sees it: every call goes to the real file system, is
/// logged in order, and any one can be made to fail. It also tracks which files hold data not yet
/// made durable (written, not yet fsync'ed or fdatasync'ed).
final class RecordingFileSystem: CardImageFileSystem {
    /// One call, with files named by their last path component (a temporary file beside
    /// `card.img` as `card.img.tmp`, whatever its fresh name) and the directory as "directory".
    enum Call: Equatable, CustomStringConvertible {
        case open(String, creating: Bool)
        case fstat(String)
        case lstat(String)
        case lock(String)
        case pread(String)
        case pwrite(String, offset: Int, count: Int)
        case ftruncate(String, length: Int)
        case fdatasync(String)
        case fsync(String)
        case close(String)
        case rename(String, to: String)
        case fsyncDirectory
        case unlink(String)

        /// The system call's name, as a ``SystemCallError`` names it.
        var name: String {
            switch self {
            case .open: "open"
            case .fstat: "fstat"
            case .lstat: "lstat"
            case .lock: "flock"
            case .pread: "pread"
            case .pwrite: "pwrite"
            case .ftruncate: "ftruncate"
            case .fdatasync: "fdatasync"
            case .fsync, .fsyncDirectory: "fsync"
            case .close: "close"
            case .rename: "rename"
            case .unlink: "unlink"
            }
        }

        /// The file the call is on.
        var file: String {
            switch self {
            case .open(let file, _), .fstat(let file), .lstat(let file), .lock(let file), .pread(let file),
                 .pwrite(let file, _, _), .ftruncate(let file, _), .fdatasync(let file), .fsync(let file),
                 .close(let file), .rename(let file, _), .unlink(let file):
                file
            case .fsyncDirectory:
                "directory"
            }
        }

        var description: String {
            switch self {
            case .open(let file, let creating): "open(\(file)\(creating ? ", create" : ""))"
            case .fstat(let file): "fstat(\(file))"
            case .lstat(let file): "lstat(\(file))"
            case .lock(let file): "lock(\(file))"
            case .pread(let file): "pread(\(file))"
            case .pwrite(let file, let offset, let count): "pwrite(\(file), \(count) bytes at \(offset))"
            case .ftruncate(let file, let length): "ftruncate(\(file), \(length))"
            case .fdatasync(let file): "fdatasync(\(file))"
            case .fsync(let file): "fsync(\(file))"
            case .close(let file): "close(\(file))"
            case .rename(let from, let to): "rename(\(from) → \(to))"
            case .fsyncDirectory: "fsync(directory)"
            case .unlink(let file): "unlink(\(file))"
            }
        }
    }

    /// A call to fail: the first call named `call` (a system call's name) on `file` fails with
    /// `code` (every such call, with `persistent`). A failing pwrite first writes half of its
    /// bytes, as a disk filling up does.
    struct Fault: Sendable, CustomTestStringConvertible {
        let call: String
        let file: String
        let code: Int32
        var persistent = false

        var testDescription: String { "\(call)(\(file)) fails: \(SystemCallError.text(code))" }
    }

    private let real = POSIXFileSystem()
    private(set) var calls: [Call] = []
    /// Files written since their last fsync or fdatasync.
    private(set) var unsynced: Set<String> = []
    var fault: Fault?
    /// Runs just before each `flock`, with the file's name: where a test puts what another
    /// process does between an opener's `open` and its lock.
    var beforeLock: ((String) -> Void)?
    private var names: [Int32: String] = [:]

    /// Forgets the calls logged so far.
    func clearLog() { calls = [] }

    /// Logs `call`, and throws the armed fault if it matches.
    private func record(_ call: Call) throws(SystemCallError) {
        calls.append(call)
        if let fault, fault.call == call.name, fault.file == call.file {
            if !fault.persistent { self.fault = nil }
            throw SystemCallError(call.name, code: fault.code)
        }
    }

    /// The last path component, a temporary file's fresh name as `NAME.tmp`.
    static func name(_ path: String) -> String {
        let name = String(path.split(separator: "/").last ?? Substring(path))
        if let infix = name.range(of: ".tmp-", options: .backwards),
           NewFile.isTemporaryName(name, for: String(name[..<infix.lowerBound])) {
            return name[..<infix.lowerBound] + ".tmp"
        }
        return name
    }

    func openExisting(_ path: String) throws(SystemCallError) -> Int32? {
        try record(.open(Self.name(path), creating: false))
        let descriptor = try real.openExisting(path)
        if let descriptor { names[descriptor] = Self.name(path) }
        return descriptor
    }

    func createNew(_ path: String) throws(SystemCallError) -> Int32 {
        try record(.open(Self.name(path), creating: true))
        let descriptor = try real.createNew(path)
        names[descriptor] = Self.name(path)
        return descriptor
    }

    func createTemporary(beside path: String) throws(SystemCallError) -> (descriptor: Int32, path: String) {
        try record(.open(Self.name(path) + ".tmp", creating: true))
        let created = try real.createTemporary(beside: path)
        names[created.descriptor] = Self.name(created.path)
        unsynced.insert(Self.name(created.path))
        return created
    }

    func status(of descriptor: Int32) throws(SystemCallError) -> FileStatus {
        try record(.fstat(names[descriptor] ?? "?"))
        return try real.status(of: descriptor)
    }

    func status(atPath path: String) throws(SystemCallError) -> FileStatus? {
        try record(.lstat(Self.name(path)))
        return try real.status(atPath: path)
    }

    func resolve(_ path: String) -> String? {
        real.resolve(path)
    }

    func tryLock(_ descriptor: Int32) throws(SystemCallError) -> Bool {
        beforeLock?(names[descriptor] ?? "?")
        try record(.lock(names[descriptor] ?? "?"))
        return try real.tryLock(descriptor)
    }

    func pread(_ descriptor: Int32, upTo count: Int, at offset: Int) throws(SystemCallError) -> [UInt8] {
        try record(.pread(names[descriptor] ?? "?"))
        return try real.pread(descriptor, upTo: count, at: offset)
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
        // The descriptor now has the destination's name.
        for (descriptor, name) in names where name == Self.name(source) { names[descriptor] = Self.name(destination) }
    }

    func fsyncDirectory(_ path: String) throws(SystemCallError) {
        try record(.fsyncDirectory)
        try real.fsyncDirectory(path)
        unsynced.remove("directory")
    }

    func unlink(_ path: String) {
        calls.append(.unlink(Self.name(path)))
        unsynced.remove(Self.name(path))
        real.unlink(path)
    }

    func directoryEntries(_ path: String) -> [String]? {
        real.directoryEntries(path)
    }
}
