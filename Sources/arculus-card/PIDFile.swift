#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// `serve --pid-file FILE`: the process id in a file, for `kill -USR1 $(cat FILE)`.
///
/// Written through a temporary file of a fresh name renamed over FILE (``NewFile``), so a reader
/// never sees half a number and nothing planted at FILE or beside it is followed or reused. Mode
/// 0644: a pid is no secret, and tools of other users (a supervisor, a test harness) read it;
/// only the owner (or root) can signal the process anyway. Not fsync'ed: a pid means nothing
/// after a reboot. Removed on exit, unless FILE is by then another file (a newer run's).
///
/// `serve --ready-file FILE` is written the same way, with the lines that said each card is on
/// its reader (``init(path:contents:)``).
struct PIDFile {
    let path: String
    private let identity: FileStatus.Identity

    /// Writes this process's id to `path`.
    init(path: String) throws(SystemCallError) {
        try self.init(path: path, contents: "\(getpid())\n")
    }

    /// Writes `contents` to `path`.
    init(path: String, contents: String) throws(SystemCallError) {
        self.path = path
        let file = try NewFile.temporary(beside: path, mode: 0o644)
        do {
            try file.write(contents.utf8)
            identity = try POSIX.status(of: file.descriptor).identity
            try file.rename(over: path, durable: false)
        } catch {
            file.discard()
            throw error
        }
        file.close()
    }

    /// Removes the file, if it is still the one this process wrote.
    func remove() {
        guard (try? POSIX.status(atPath: path))?.identity == identity else { return }
        unlink(path)
    }
}
