#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONSupport
import POSIXSupport

/// A client of a served card's ``ControlChannel``: `arculus-card ctl` uses it, and so can Swift
/// tests. One connection; each ``send(_:)`` writes a request line and reads its answer line.
public final class ControlChannelClient {
    /// The socket's path.
    public let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to the control socket at `path`.
    public init(path: String) throws(ControlChannelError) {
        self.path = path
        fd = ControlChannelSocket.makeSocket()
        guard fd >= 0 else { throw .socket("cannot create a Unix socket: \(ControlChannelSocket.errorText(errno))") }
        if let code = ControlChannelSocket.connect(fd, to: path) {
            ControlChannelSocket.closeSocket(fd)
            fd = -1
            let hint = code == ENOENT || code == ECONNREFUSED
                ? " (is 'arculus-card serve' running with this control socket? see --control)" : ""
            throw .socket("cannot reach the control socket \(path): \(ControlChannelSocket.errorText(code))\(hint)")
        }
    }

    deinit {
        if fd >= 0 { ControlChannelSocket.closeSocket(fd) }
    }

    /// Sends one typed request (its ``ControlRequest/json``) and returns the card's answer.
    public func send(_ request: ControlRequest) throws(ControlChannelError) -> JSONValue {
        try send(request.json)
    }

    /// Sends one request object and returns the card's answer (`ok` false answers are returned,
    /// not thrown).
    public func send(_ request: JSONValue) throws(ControlChannelError) -> JSONValue {
        guard ControlChannelSocket.sendAll(fd, Array((request.text + "\n").utf8)) else {
            throw .socket("cannot write to the control socket \(path): \(ControlChannelSocket.errorText(errno))")
        }
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
                throw .socket("cannot read from the control socket \(path): \(ControlChannelSocket.errorText(error.code))")
            }
            if chunk.isEmpty { throw .socket("the card closed the control connection without answering") }
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
