import Foundation

/// A process's memory, from `/proc/PID/smaps_rollup`: its resident size, and the part of it no
/// other process shares (what one more such process costs the machine; resident size counts the
/// shared libraries, Swift's runtime and Foundation, that every Swift process maps).
struct ProcessMemory {
    /// Resident set size, KiB.
    var residentKiB = 0
    /// Private clean + private dirty, KiB.
    var privateKiB = 0

    init(pid: pid_t) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:": residentKiB = value
            case "Private_Clean:", "Private_Dirty:": privateKiB += value
            default: break
            }
        }
    }

    init(residentKiB: Int, privateKiB: Int) {
        self.residentKiB = residentKiB
        self.privateKiB = privateKiB
    }

    static func megabytes(_ kib: Double) -> String { String(format: "%.1f MB", kib / 1024) }
}
