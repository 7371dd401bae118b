#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The card image's file-system calls on the real file system.
final class POSIXFileSystem: CardImageFileSystem {
    func openExisting(_ path: String) throws(SystemCallError) -> Int32? {
        // O_NONBLOCK: opening a FIFO or a device must not wait; it changes nothing for a regular file.
        let descriptor = systemOpen(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0)
        if descriptor < 0 && errno == ENOENT { return nil }
        return try check("open", descriptor)
    }

    func createNew(_ path: String) throws(SystemCallError) -> Int32 {
        try NewFile.create(path, mode: 0o600).descriptor
    }

    func createTemporary(beside path: String) throws(SystemCallError) -> (descriptor: Int32, path: String) {
        let file = try NewFile.temporary(beside: path, mode: 0o600)
        return (file.descriptor, file.path)
    }

    func status(of descriptor: Int32) throws(SystemCallError) -> FileStatus {
        try POSIX.status(of: descriptor)
    }

    func status(atPath path: String) throws(SystemCallError) -> FileStatus? {
        try POSIX.status(atPath: path)
    }

    func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func tryLock(_ descriptor: Int32) throws(SystemCallError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw SystemCallError("flock")
        }
        return true
    }

    func pread(_ descriptor: Int32, upTo count: Int, at offset: Int) throws(SystemCallError) -> [UInt8] {
        try POSIX.pread(descriptor, upTo: count, at: offset)
    }

    func pwrite(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemCallError) {
        try POSIX.pwriteAll(descriptor, bytes, at: offset)
    }

    func ftruncate(_ descriptor: Int32, to length: Int) throws(SystemCallError) {
        _ = try check("ftruncate", systemFtruncate(descriptor, off_t(length)))
    }

    func fdatasync(_ descriptor: Int32) throws(SystemCallError) {
        #if canImport(Glibc)
        _ = try check("fdatasync", systemFdatasync(descriptor))
        #else
        // Darwin's fsync leaves the data in the drive's cache; F_FULLFSYNC does not.
        _ = try check("fcntl(F_FULLFSYNC)", fcntl(descriptor, F_FULLFSYNC))
        #endif
    }

    func fsync(_ descriptor: Int32) throws(SystemCallError) {
        _ = try check("fsync", systemFsync(descriptor))
    }

    func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    func rename(_ source: String, to destination: String) throws(SystemCallError) {
        _ = try check("rename", systemRename(source, destination))
    }

    func fsyncDirectory(_ path: String) throws(SystemCallError) {
        try NewFile.syncDirectory(path)
    }

    func unlink(_ path: String) {
        _ = systemUnlink(path)
    }

    func directoryEntries(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `result`, or the call's error when it is negative (the C convention).
    private func check(_ call: String, _ result: Int32) throws(SystemCallError) -> Int32 {
        guard result >= 0 else { throw SystemCallError(call) }
        return result
    }
}

// The C calls, at file scope: inside the class its methods of the same names would hide them.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemFtruncate(_ descriptor: Int32, _ length: off_t) -> Int32 { ftruncate(descriptor, length) }
#if canImport(Glibc)
private func systemFdatasync(_ descriptor: Int32) -> Int32 { fdatasync(descriptor) }
#endif
private func systemFsync(_ descriptor: Int32) -> Int32 { fsync(descriptor) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
