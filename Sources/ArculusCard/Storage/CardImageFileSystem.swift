import CTAP2
import POSIXSupport

/// The file-system calls a ``CardImageFile`` makes, and nothing else: the seam through which a
/// test sees their order (the data is durable before the card answers, a temporary file is
/// synced before it is renamed) and makes any one of them fail. ``POSIXFileSystem`` is the real one.
///
/// Each call that can fail throws the ``SystemCallError`` of the system call that failed.
protocol CardImageFileSystem: AnyObject {
    /// Opens `path` for writing; with `creating`, creates it owner-only (0600) or empties it.
    func open(_ path: String, creating: Bool) throws(SystemCallError) -> Int32
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
    /// The whole file at `path`, or nil when there is none.
    func readFile(_ path: String) throws(SystemCallError) -> [UInt8]?
    func unlink(_ path: String)
    /// Creates the lock file `path` (0600) if needed and takes an exclusive `flock` on it without
    /// waiting; nil when another open file holds it.
    func lock(_ path: String) throws(SystemCallError) -> Int32?
    /// Releases and closes a lock from ``lock(_:)``.
    func unlock(_ descriptor: Int32)
}
