#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension POSIX {
    /// `recv(2)` into `buffer` with `flags` (e.g. `MSG_DONTWAIT`), resumed after a signal: the
    /// count received, 0 when the peer closed. Nothing to read on a non-blocking call is an error
    /// with code `EAGAIN` (or `EWOULDBLOCK`), as is a receive time-out (`SO_RCVTIMEO`).
    public static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer,
                               flags: Int32 = 0) throws(SystemCallError) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, flags)
            if count >= 0 { return count }
            guard errno == EINTR else { throw SystemCallError("recv") }
        }
    }

    /// `header` then `body` to a connected socket in one `sendmsg(2)`, resumed after a signal: the
    /// count sent, which may be short (a full socket buffer; send the rest with ``sendAll(_:_:)``).
    /// A closed peer is an error (`EPIPE`), never a `SIGPIPE` that would end the process.
    public static func sendMessage(_ descriptor: Int32, header: UnsafeRawBufferPointer,
                                   body: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: header.baseAddress), iov_len: header.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count))
        while true {
            let sent = withUnsafeMutableBytes(of: &vectors) { vectorBytes in
                var message = msghdr()
                message.msg_iov = vectorBytes.baseAddress?.assumingMemoryBound(to: iovec.self)
                message.msg_iovlen = 2
                return sendmsg(descriptor, &message, noSignal)
            }
            if sent >= 0 { return sent }
            guard errno == EINTR else { throw SystemCallError("sendmsg") }
        }
    }

    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif
}
