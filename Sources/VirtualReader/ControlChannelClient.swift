#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

    /// Sends one request and returns the card's answer (`ok` false answers are returned, not thrown).
    public func send(_ request: ControlChannelJSON) throws(ControlChannelError) -> ControlChannelJSON {
        guard ControlChannelSocket.sendAll(fd, Array((request.jsonText + "\n").utf8)) else {
            throw .socket("cannot write to the control socket \(path): \(ControlChannelSocket.errorText(errno))")
        }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return try ControlChannelJSON(parsing: line)
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
}
