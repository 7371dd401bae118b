#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The checks that keep a control socket and its discovery record out of other users' reach,
/// as ssh-agent and gpg-agent keep theirs: a directory that holds one must be the user's own and
/// writable by nobody else, and so must the socket file itself. The server checks before it
/// creates anything; the client checks again before it sends anything (another user may have
/// made the name first).
enum ControlChannelDirectory {
    /// What a path is, for a control socket or record.
    enum Verdict: Equatable {
        /// Owned by the effective user, not writable by group or others: fit.
        case fit
        /// Nothing there.
        case missing
        /// Not the kind of file expected (not a directory, not a socket, a symbolic link).
        case wrongKind(String)
        /// Owned by another user.
        case owner(UInt32)
        /// Writable by group or others (the mode).
        case writableByOthers(UInt32)
        /// `stat` failed otherwise (errno).
        case unreadable(Int32)

        /// Why the path is unfit, in words about `subject` ("it", "its directory /tmp"), or nil
        /// when it is fit.
        func problem(_ subject: String = "it") -> String? {
            switch self {
            case .fit: nil
            case .missing: "\(subject) does not exist"
            case .wrongKind(let what): "\(subject) is \(what)"
            case .owner(let uid):
                "\(subject) belongs to \(ControlChannelSocket.user(uid)), not to you (uid \(geteuid()))"
            case .writableByOthers(let mode): "\(subject) is writable by other users (mode \(Self.octal(mode)))"
            case .unreadable(let code): "cannot look at \(subject): \(SystemCallError.text(code))"
            }
        }

        static func octal(_ mode: UInt32) -> String {
            let digits = String(mode & 0o7777, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Whether `path` is a directory fit to hold a control socket or record: owned by the
    /// effective user and writable by nobody else. `followingLinks` false refuses a symbolic
    /// link (for the directories serve makes itself; a user's own `--control` directory may be
    /// reached through one).
    static func check(directory path: String, followingLinks: Bool = true) -> Verdict {
        var status = stat()
        let result = followingLinks ? stat(path, &status) : lstat(path, &status)
        guard result == 0 else { return errno == ENOENT ? .missing : .unreadable(errno) }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFLNK { return .wrongKind("a symbolic link") }
        guard kind == S_IFDIR else { return .wrongKind("not a directory") }
        return verdict(owner: status.st_uid, mode: UInt32(status.st_mode))
    }

    /// Whether `path` is a control socket of the effective user's that nobody else may connect to.
    static func check(socket path: String) -> Verdict {
        var status = stat()
        guard lstat(path, &status) == 0 else { return errno == ENOENT ? .missing : .unreadable(errno) }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return .wrongKind("not a socket") }
        return verdict(owner: status.st_uid, mode: UInt32(status.st_mode))
    }

    /// Whether an open record file is a regular file of the effective user's that nobody else may change.
    static func check(record fd: Int32) -> Verdict {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .unreadable(errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .wrongKind("not a regular file") }
        return verdict(owner: status.st_uid, mode: UInt32(status.st_mode))
    }

    private static func verdict(owner: uid_t, mode: UInt32) -> Verdict {
        guard owner == geteuid() else { return .owner(UInt32(owner)) }
        guard mode & 0o022 == 0 else { return .writableByOthers(mode) }
        return .fit
    }

    /// The directory part of `path`: `.` for a bare name, `/` for a name in the root.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// A new directory only the effective user can enter, `<parent>/<prefix>XXXXXX` (`mkdtemp`:
    /// a name nobody could have taken first).
    static func makeTemporary(in parent: String, prefix: String) throws(ControlChannelError) -> String {
        var template = Array((parent + "/" + prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else {
            throw .socket("cannot create a private directory for the control socket in \(parent): \(SystemCallError.text(errno))")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates `path` (mode 0700) unless it exists, then requires it to be a directory of the
    /// effective user's that nobody else can write (a symbolic link is refused): the per-user
    /// directory of the discovery records, whose name another user could have taken first.
    static func makePrivate(_ path: String) -> Verdict {
        if mkdir(path, 0o700) != 0, errno != EEXIST { return errno == ENOENT ? .missing : .unreadable(errno) }
        return check(directory: path, followingLinks: false)
    }
}
