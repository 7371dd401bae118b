#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file this process has just created, open for reading and writing: the one way the project
/// makes a file (card images and their temporary files, transcripts and their image copies, the
/// pid file, every file the command line writes).
///
/// Made the way git makes its lock files: `open` with `O_CREAT|O_EXCL|O_NOFOLLOW`, so that nothing
/// already at the name is opened, followed or truncated — not a file someone else created there
/// first, not a symbolic link planted to point at another user's file; the call fails instead
/// (`EEXIST`). The mode is then set with `fchmod`, so the file has exactly the mode asked for,
/// whatever the umask.
///
/// A file that replaces another is written under a fresh name beside it (``temporary(beside:mode:flags:)``:
/// `NAME.tmp-` and 12 random hex digits), synced, and renamed over it (``replace(_:with:mode:durable:)``):
/// a reader sees the old file or the new one, never part of one, and a symbolic link at the name
/// is replaced, never written through.
public struct NewFile: Sendable {
    /// Open for reading and writing (plus the flags the creator passed).
    public let descriptor: Int32
    /// The name it was created under.
    public let path: String

    /// Creates `path` with `mode`; fails with `EEXIST` when anything is at that name, a symbolic
    /// link (even one to nowhere) included. `flags` are added to `O_RDWR` (e.g. `O_APPEND`).
    public static func create(_ path: String, mode: mode_t, flags: Int32 = 0) throws(SystemCallError) -> NewFile {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | flags, mode)
        guard descriptor >= 0 else { throw SystemCallError("open") }
        // The umask narrowed the mode `open` gave; a caller that asks for 0644 gets 0644.
        guard fchmod(descriptor, mode) == 0 else {
            let failure = SystemCallError("fchmod")
            _ = systemClose(descriptor)
            unlink(path)
            throw failure
        }
        return NewFile(descriptor: descriptor, path: path)
    }

    /// Creates a file of a fresh name beside `path` — `path.tmp-` and 12 random hex digits, a new
    /// name tried while one is taken — as ``create(_:mode:flags:)`` does.
    public static func temporary(beside path: String, mode: mode_t, flags: Int32 = 0) throws(SystemCallError) -> NewFile {
        var attempts = 0
        while true {
            let name = path + temporaryInfix + hexDigits(UInt64.random(in: 0..<(1 << 48)), count: temporarySuffixLength)
            do {
                return try create(name, mode: mode, flags: flags)
            } catch where error.code == EEXIST && attempts < 100 {
                attempts += 1
            }
        }
    }

    /// Whether the file name `name` is one ``temporary(beside:mode:flags:)`` makes beside a file named
    /// `fileName` (both without their directory).
    public static func isTemporaryName(_ name: String, for fileName: String) -> Bool {
        guard name.hasPrefix(fileName + temporaryInfix) else { return false }
        let suffix = name.utf8.dropFirst(fileName.utf8.count + temporaryInfix.utf8.count)
        return suffix.count == temporarySuffixLength && suffix.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Renames the file over `destination`, replacing whatever is there (a symbolic link itself,
    /// not its target). With `durable`, the directory is fsync'ed after, so that the new name
    /// survives a power cut; the file's data should have been synced before (``sync()``).
    public func rename(over destination: String, durable: Bool) throws(SystemCallError) {
        guard systemRename(path, destination) == 0 else { throw SystemCallError("rename") }
        if durable { try Self.syncDirectory(Self.directory(of: destination)) }
    }

    /// Writes all of `bytes` from the file's start.
    public func write(_ bytes: some Collection<UInt8>) throws(SystemCallError) {
        try POSIX.pwriteAll(descriptor, Array(bytes), at: 0)
    }

    /// Makes the file's data and metadata durable (`fsync`).
    public func sync() throws(SystemCallError) {
        guard fsync(descriptor) == 0 else { throw SystemCallError("fsync") }
    }

    public func close() {
        _ = systemClose(descriptor)
    }

    /// After a failure: closes the file and removes the name it was created under.
    public func discard() {
        close()
        unlink(path)
    }

    // MARK: - Replacing a file

    /// Why ``replace(_:with:mode:durable:)`` failed: the file and the system call.
    public struct WriteError: Error, Equatable, Sendable, CustomStringConvertible {
        public let path: String
        public let failure: SystemCallError

        public var description: String { "cannot write \(path): \(failure)" }
    }

    /// Makes `path` a file holding `bytes` with `mode`, in one step a reader or a crash cannot
    /// split: a temporary file beside it is written, synced (with `durable`), renamed over `path`,
    /// and (with `durable`) the directory synced. On failure `path` is as it was and no temporary
    /// file is left.
    public static func replace(_ path: String, with bytes: some Collection<UInt8>, mode: mode_t,
                               durable: Bool = true) throws(WriteError) {
        let file: NewFile
        do {
            file = try temporary(beside: path, mode: mode)
        } catch {
            throw WriteError(path: path, failure: error)
        }
        do {
            try file.write(bytes)
            if durable { try file.sync() }
            try file.rename(over: path, durable: false)
        } catch {
            file.discard()
            throw WriteError(path: path, failure: error)
        }
        file.close()
        if durable {
            do {
                try syncDirectory(directory(of: path))
            } catch {
                throw WriteError(path: path, failure: error)
            }
        }
    }

    // MARK: - Directories

    /// Makes the names in the directory `path` durable (a rename into it survives a power cut).
    public static func syncDirectory(_ path: String) throws(SystemCallError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemCallError("open") }
        defer { _ = systemClose(descriptor) }
        guard fsync(descriptor) == 0 else { throw SystemCallError("fsync") }
    }

    /// The directory holding `path` (`.` for a bare name, `/` for a name at the root).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static let temporaryInfix = ".tmp-"
    private static let temporarySuffixLength = 12

    private static func hexDigits(_ value: UInt64, count: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }
}

// The C calls whose names the struct's own methods hide.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
