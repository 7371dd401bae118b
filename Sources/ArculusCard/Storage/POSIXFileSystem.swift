#if canImport(Glibc)
import CTAP2
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The card image's file-system calls on the real file system.
final class POSIXFileSystem: CardImageFileSystem {
    func open(_ path: String, creating: Bool) throws(SystemCallError) -> Int32 {
        try check("open", systemOpen(path, O_WRONLY | O_CLOEXEC | (creating ? O_CREAT | O_TRUNC : 0), 0o600))
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
        let descriptor = try check("open", systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0))
        defer { close(descriptor) }
        _ = try check("fsync", systemFsync(descriptor))
    }

    func readFile(_ path: String) throws(SystemCallError) -> [UInt8]? {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC, 0)
        if descriptor < 0 && errno == ENOENT { return nil }
        _ = try check("open", descriptor)
        defer { close(descriptor) }
        return try POSIX.readToEnd(descriptor)
    }

    func unlink(_ path: String) {
        _ = systemUnlink(path)
    }

    func lock(_ path: String) throws(SystemCallError) -> Int32? {
        let descriptor = try check("open", systemOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600))
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = SystemCallError("flock")
            close(descriptor)
            if failure.code == EWOULDBLOCK { return nil }
            throw failure
        }
        return descriptor
    }

    func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
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
