#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durability floor: one small record appended to a file and `fdatasync`ed, on the same
/// file system as the card images. This is what `CardImageFile` must do before a card answers
/// a command that changed its memory (a counter step is a ~45-byte journal record), so no
/// durable operation can be faster than this plus its cryptography.
final class JournalAppendProbe {
    let path: String
    /// The record size (a journal record of a counter step is about this long).
    static let recordLength = 64
    private let descriptor: Int32
    private var offset = 0
    private let record = [UInt8](repeating: 0xA5, count: JournalAppendProbe.recordLength)

    init(directory: String) throws {
        path = "\(directory)/fdatasync-probe.bin"
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// One append + fdatasync, timed.
    func step() throws -> UInt64 {
        if offset > 4 << 20 {
            _ = ftruncate(descriptor, 0)
            offset = 0
        }
        let start = monotonicNanoseconds()
        let written = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == record.count, fdatasync(descriptor) == 0 else {
            throw BenchError("append to \(path) failed: \(String(cString: strerror(errno)))")
        }
        let elapsed = monotonicNanoseconds() - start
        offset += record.count
        return elapsed
    }

    /// The file system type of `directory`: the longest mount point in /proc/self/mounts
    /// above its real path.
    static func fileSystem(of directory: String) -> String {
        guard let resolved = realpath(directory, nil) else { return "unknown" }
        let path = String(cString: resolved)
        free(resolved)
        guard let file = fopen("/proc/self/mounts", "r") else { return "unknown" }
        defer { fclose(file) }
        var best = (length: -1, type: "unknown")
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: " ")
            guard fields.count >= 3 else { continue }
            let mountPoint = String(fields[1])
            let inside = mountPoint == "/" || path == mountPoint || path.hasPrefix(mountPoint + "/")
            if inside && mountPoint.count > best.length { best = (mountPoint.count, String(fields[2])) }
        }
        return best.type == "tmpfs" ? "tmpfs: fdatasync is free here, durability is not measured" : best.type
    }
}
