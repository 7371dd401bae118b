#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// Where a served card's default control socket lives, and how `arculus-card ctl` finds it for a
/// port — the scheme of ssh-agent (a socket in a fresh private directory) and gpg-agent (a
/// per-user runtime directory), so that no name another user can take first is ever trusted:
///
/// - the socket is `<dir>/port-<port>.sock` in a directory made for it with `mkdtemp` (mode
///   0700) under the runtime directory (`$XDG_RUNTIME_DIR`, when it is a directory of the user's
///   that nobody else can write) or else under the temporary directory (`$TMPDIR`, or `/tmp`);
/// - its path is written to a discovery record, `<records>/port-<port>`, in the records
///   directory: `$XDG_RUNTIME_DIR/arculus-card`, or else `<tmp>/arculus-card-<uid>`, made 0700
///   and refused (by the server and by the client) when it is not the user's own, is a symbolic
///   link or others can write to it;
/// - the client reads the record, then checks the socket's directory and the socket, and the
///   credentials of the process serving it (``ControlChannelClient``), before it sends a byte.
///
/// The newest serve for a port owns the record; each serve removes it on the way out only while
/// it still names its own socket.
public struct ControlChannelLocation: Equatable, Sendable {
    /// `$XDG_RUNTIME_DIR` when it is a private directory of the user's; nil otherwise.
    public var runtimeDirectory: String?
    /// `$TMPDIR` (when it is an absolute path), or `/tmp`.
    public var temporaryDirectory: String

    public init(runtimeDirectory: String?, temporaryDirectory: String = "/tmp") {
        self.runtimeDirectory = runtimeDirectory
        self.temporaryDirectory = temporaryDirectory
    }

    /// The location this process's environment gives: `XDG_RUNTIME_DIR` if it is an absolute
    /// path to a directory of the user's that nobody else can write (else it is not used), and
    /// `TMPDIR` if it is an absolute path.
    public static func current() -> ControlChannelLocation {
        from(runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) },
             temporaryDirectory: getenv("TMPDIR").map { String(cString: $0) })
    }

    /// The location the two variables' values give (see ``current()``).
    static func from(runtimeDirectory: String?, temporaryDirectory: String?) -> ControlChannelLocation {
        func absolute(_ value: String?) -> String? {
            guard let value, value.hasPrefix("/") else { return nil }
            return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
        }
        let runtime = absolute(runtimeDirectory).flatMap { ControlChannelDirectory.check(directory: $0) == .fit ? $0 : nil }
        return ControlChannelLocation(runtimeDirectory: runtime, temporaryDirectory: absolute(temporaryDirectory) ?? "/tmp")
    }

    /// The directory of the discovery records: `<runtime>/arculus-card`, or
    /// `<tmp>/arculus-card-<uid>`.
    public var recordDirectory: String {
        if let runtimeDirectory { return runtimeDirectory + "/arculus-card" }
        return temporaryDirectory + "/arculus-card-\(geteuid())"
    }

    /// The discovery record of the card served to `endpoint`.
    public func record(for endpoint: VPCDEndpoint) -> String {
        recordDirectory + "/port-\(endpoint.port)"
    }

    /// Where serve makes the private directory of a new socket.
    var socketParent: String { runtimeDirectory ?? temporaryDirectory }

    /// The longest record read: a socket path is at most 107 bytes.
    private static let maximumRecordSize = 4096

    // MARK: - The client's side

    /// The control socket the record for `endpoint` names, after checking that the records
    /// directory and the record are the user's own and nobody else can write them. Throws
    /// ``ControlChannelError/untrusted(path:reason:)`` when they are not, and
    /// ``ControlChannelError/socket(_:)`` when there is no record.
    public func socketPath(for endpoint: VPCDEndpoint) throws(ControlChannelError) -> String {
        let directory = recordDirectory
        let record = record(for: endpoint)
        let noRecord = ControlChannelError.socket(
            "no served card has a control socket for port \(endpoint.port) (no record \(record)): is 'arculus-card serve' "
                + "running for it, with the same XDG_RUNTIME_DIR and TMPDIR? (a serve given --control PATH is reached with ctl --control PATH)")
        switch ControlChannelDirectory.check(directory: directory, followingLinks: false) {
        case .fit: break
        case .missing: throw noRecord
        case let verdict: throw .untrusted(path: directory, reason: verdict.problem() ?? "")
        }
        let fd = open(record, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: throw noRecord
            case ELOOP: throw .untrusted(path: record, reason: "it is a symbolic link")
            default: throw .socket("cannot read the control socket record \(record): \(SystemCallError.text(errno))")
            }
        }
        defer { _ = close(fd) }
        if let problem = ControlChannelDirectory.check(record: fd).problem() { throw .untrusted(path: record, reason: problem) }
        guard let bytes = try? POSIX.read(fd, upTo: Self.maximumRecordSize),
              let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first, line.hasPrefix("/") else {
            throw .socket("the control socket record \(record) names no socket; start 'arculus-card serve' again")
        }
        return String(line)
    }

    // MARK: - The server's side

    /// Makes the private directory for a new socket of the card served to `endpoint` and
    /// returns it with the socket's path in it.
    func makeSocketDirectory(for endpoint: VPCDEndpoint) throws(ControlChannelError) -> (directory: String, socket: String) {
        let directory = try ControlChannelDirectory.makeTemporary(in: socketParent, prefix: "arculus-card.")
        return (directory, directory + "/port-\(endpoint.port).sock")
    }

    /// Writes the record naming `socket` for `endpoint` (a new file renamed into place, so a
    /// reader sees the old record or the new one).
    func publish(_ socket: String, for endpoint: VPCDEndpoint) throws(ControlChannelError) {
        let directory = recordDirectory
        if let problem = ControlChannelDirectory.makePrivate(directory).problem() {
            throw .socket("cannot record the control socket for 'arculus-card ctl' in \(directory): \(problem); "
                          + "remove it, or give --control PATH (a socket in a directory only you can write) or --no-control")
        }
        let record = record(for: endpoint)
        let temporary = directory + "/.port-\(endpoint.port).\(getpid()).new"
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .socket("cannot write the control socket record \(temporary): \(SystemCallError.text(errno))")
        }
        let written = (try? POSIX.writeAll(fd, Array((socket + "\n").utf8))) != nil
        let closed = close(fd) == 0
        guard written, closed, rename(temporary, record) == 0 else {
            let reason = SystemCallError.text(errno)
            _ = unlink(temporary)
            throw .socket("cannot write the control socket record \(record): \(reason)")
        }
    }

    /// Removes the record for `endpoint` if it still names `socket` (a newer serve for the port
    /// may have replaced it).
    func withdraw(_ socket: String, for endpoint: VPCDEndpoint) {
        let record = record(for: endpoint)
        guard (try? socketPath(for: endpoint)) == socket else { return }
        _ = unlink(record)
    }
}
