#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `fstat(2)`/`lstat(2)` say about a file, in the few fields the emulator decides on: which
/// file it is (device and inode: two names or descriptors of one file compare equal), what kind,
/// how big, how many names it has, and its mode and owner.
public struct FileStatus: Equatable, Sendable {
    /// The kind of a directory entry.
    public enum Kind: String, Sendable {
        case regularFile = "a regular file"
        case directory = "a directory"
        case symbolicLink = "a symbolic link"
        case characterDevice = "a character device"
        case blockDevice = "a block device"
        case fifo = "a FIFO"
        case socket = "a socket"
        case other = "a special file"
    }

    /// Device and inode: the file itself, whatever name or descriptor reached it.
    public struct Identity: Equatable, Hashable, Sendable {
        public let device: UInt64
        public let inode: UInt64
    }

    public let identity: Identity
    public let kind: Kind
    public let size: Int
    /// Hard links: the names the file has.
    public let links: Int
    /// The permission bits (`st_mode & 0o7777`).
    public let permissions: mode_t
    public let owner: uid_t

    public init(identity: Identity, kind: Kind, size: Int, links: Int, permissions: mode_t, owner: uid_t) {
        self.identity = identity
        self.kind = kind
        self.size = size
        self.links = links
        self.permissions = permissions
        self.owner = owner
    }

    init(_ raw: stat) {
        let kind: Kind = switch raw.st_mode & S_IFMT {
        case S_IFREG: .regularFile
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        default: .other
        }
        self.init(identity: Identity(device: UInt64(truncatingIfNeeded: raw.st_dev), inode: UInt64(truncatingIfNeeded: raw.st_ino)), kind: kind,
                  size: Int(raw.st_size), links: Int(raw.st_nlink), permissions: raw.st_mode & 0o7777, owner: raw.st_uid)
    }
}

extension POSIX {
    /// The file open on `descriptor` (`fstat(2)`).
    public static func status(of descriptor: Int32) throws(SystemCallError) -> FileStatus {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { throw SystemCallError("fstat") }
        return FileStatus(raw)
    }

    /// The directory entry at `path` itself, a symbolic link not followed (`lstat(2)`); nil when
    /// there is none.
    public static func status(atPath path: String) throws(SystemCallError) -> FileStatus? {
        var raw = stat()
        guard lstat(path, &raw) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError("lstat")
        }
        return FileStatus(raw)
    }
}
