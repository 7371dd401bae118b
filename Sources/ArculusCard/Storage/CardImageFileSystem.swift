import CTAP2
import POSIXSupport

/// The file-system calls a ``CardImageFile`` makes, and nothing else: the seam through which a
/// test sees their order (the data is durable before the card answers, a temporary file is
/// synced and locked before it is renamed) and makes any one of them fail. ``POSIXFileSystem`` is
/// the real one.
///
/// Each call that can fail throws the ``SystemCallError`` of the system call that failed.
protocol CardImageFileSystem: AnyObject {
    /// Opens the file at `path` for reading and writing — not through a symbolic link at its last
    /// component (`O_NOFOLLOW`: `ELOOP`), and without waiting on a FIFO or a device; nil when
    /// nothing is at `path`.
    func openExisting(_ path: String) throws(SystemCallError) -> Int32?
    /// Creates the file `path` owner-only (0600), open for reading and writing; fails (`EEXIST`)
    /// when anything is at the name, a symbolic link included (``NewFile/create(_:mode:flags:)``).
    func createNew(_ path: String) throws(SystemCallError) -> Int32
    /// Creates an owner-only file of a fresh name beside `path` (``NewFile/temporary(beside:mode:flags:)``).
    func createTemporary(beside path: String) throws(SystemCallError) -> (descriptor: Int32, path: String)
    /// The open file's identity, kind, size and names (`fstat`).
    func status(of descriptor: Int32) throws(SystemCallError) -> FileStatus
    /// The directory entry at `path`, a symbolic link not followed (`lstat`); nil when there is none.
    func status(atPath path: String) throws(SystemCallError) -> FileStatus?
    /// `path` with every symbolic link in it resolved (`realpath`); nil when it leads nowhere.
    func resolve(_ path: String) -> String?
    /// Takes an exclusive `flock` on the open file without waiting; false when another open file
    /// holds it. Released when the descriptor is closed.
    func tryLock(_ descriptor: Int32) throws(SystemCallError) -> Bool
    /// At most `count` bytes from `offset` on; fewer at the end of the file.
    func pread(_ descriptor: Int32, upTo count: Int, at offset: Int) throws(SystemCallError) -> [UInt8]
    /// Writes all of `bytes` at `offset`.
    func pwrite(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemCallError)
    func ftruncate(_ descriptor: Int32, to length: Int) throws(SystemCallError)
    /// Makes the file's data (and its size) durable.
    func fdatasync(_ descriptor: Int32) throws(SystemCallError)
    /// Makes the file's data and metadata durable.
    func fsync(_ descriptor: Int32) throws(SystemCallError)
    func close(_ descriptor: Int32)
    /// Replaces `destination` by `source` in one step.
    func rename(_ source: String, to destination: String) throws(SystemCallError)
    /// Makes the directory `path` durable: the names in it, so a rename into it survives a power cut.
    func fsyncDirectory(_ path: String) throws(SystemCallError)
    func unlink(_ path: String)
    /// The names in the directory `path`; nil when it cannot be read.
    func directoryEntries(_ path: String) -> [String]?
}
