#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONSupport
import POSIXSupport

/// A client of a served card's ``ControlChannel``: `arculus-card ctl` uses it, and so can Swift
/// tests. One connection; each ``send(_:)`` writes a request line and reads its answer line.
///
/// Before it sends anything it makes sure the socket is the user's card and not an impostor's
/// (a request may carry a PIN or a private key): the socket's directory must be the user's own
/// and writable by nobody else, the socket must be the user's own, and the process serving it
/// must run as the user or as root (`SO_PEERCRED`, read right after connecting). Otherwise it
/// throws ``ControlChannelError/untrusted(path:reason:)`` with the connection closed and no
/// byte written.
public final class ControlChannelClient {
    /// The socket's path.
    public let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to the control socket at `path`, after the checks above.
    public init(path: String) throws(ControlChannelError) {
        self.path = path
        fd = -1
        try Self.checkBeforeConnecting(path)
        fd = ControlChannelSocket.makeSocket()
        guard fd >= 0 else { throw .socket("cannot create a Unix socket: \(ControlChannelSocket.errorText(errno))") }
        if let code = ControlChannelSocket.connect(fd, to: path) {
            close()
            throw Self.unreachable(path, code)
        }
        guard let uid = ControlChannelSocket.peerUID(fd) else {
            let reason = ControlChannelSocket.errorText(errno)
            close()
            throw .untrusted(path: path, reason: "cannot tell who serves it (\(reason))")
        }
        guard uid == geteuid() || uid == 0 else {
            close()
            let allowed = geteuid() == 0 ? "root" : "you (uid \(geteuid())) or root"
            throw .untrusted(path: path, reason: "the process serving it runs as \(ControlChannelSocket.user(uid)), not as \(allowed)")
        }
    }

    /// Connects to the default control socket of the card served to `endpoint`, found through
    /// its discovery record (``ControlChannelLocation``).
    public convenience init(servingFor endpoint: VPCDEndpoint, location: ControlChannelLocation = .current()) throws(ControlChannelError) {
        try self.init(path: try location.socketPath(for: endpoint))
    }

    deinit { close() }

    private func close() {
        if fd >= 0 { ControlChannelSocket.closeSocket(fd) }
        fd = -1
    }

    /// The socket's directory and the socket itself, checked before connecting.
    static func checkBeforeConnecting(_ path: String) throws(ControlChannelError) {
        let directory = ControlChannelDirectory.parent(of: path)
        switch ControlChannelDirectory.check(directory: directory) {
        case .fit: break
        case .missing: throw unreachable(path, ENOENT)
        case let verdict:
            throw .untrusted(path: path, reason: verdict.problem("its directory \(directory)") ?? "")
        }
        switch ControlChannelDirectory.check(socket: path) {
        case .fit: break
        case .missing: throw unreachable(path, ENOENT)
        case let verdict: throw .untrusted(path: path, reason: verdict.problem() ?? "")
        }
    }

    private static func unreachable(_ path: String, _ code: Int32) -> ControlChannelError {
        let hint = code == ENOENT || code == ECONNREFUSED
            ? " (is 'arculus-card serve' running with this control socket? see --control)" : ""
        return .socket("cannot reach the control socket \(path): \(ControlChannelSocket.errorText(code))\(hint)")
    }

    /// Sends one typed request (its ``ControlRequest/json``) and returns the card's answer.
    public func send(_ request: ControlRequest) throws(ControlChannelError) -> JSONValue {
        try send(request.json)
    }

    /// Sends one request object and returns the card's answer (`ok` false answers are returned,
    /// not thrown).
    public func send(_ request: JSONValue) throws(ControlChannelError) -> JSONValue {
        guard fd >= 0 else { throw .socket("the control connection to \(path) is closed") }
        // A channel that refuses the connection (too many) answers before it reads anything:
        // that answer is the one to show, even when the write then finds the socket closed.
        let sent = ControlChannelSocket.sendAll(fd, Array((request.text + "\n").utf8))
        let sendError = errno
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return try Self.answer(line)
            }
            let chunk: [UInt8]
            do throws(SystemCallError) {
                chunk = try POSIX.read(fd, upTo: 4096)
            } catch {
                let code = sent ? error.code : sendError
                throw .socket("cannot \(sent ? "read from" : "write to") the control socket \(path): \(ControlChannelSocket.errorText(code))")
            }
            if chunk.isEmpty {
                guard sent else {
                    throw .socket("cannot write to the control socket \(path): \(ControlChannelSocket.errorText(sendError))")
                }
                throw .socket("the card closed the control connection without answering")
            }
            buffer += chunk
        }
    }

    private static func answer(_ line: String) throws(ControlChannelError) -> JSONValue {
        do throws(JSONValue.ParseError) {
            return try JSONValue(parsing: line)
        } catch {
            throw .badRequest(error.description)
        }
    }
}
