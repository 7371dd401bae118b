#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The Unix-domain socket calls the control channel's server and client share (the card page's
/// server uses the ones that suit any stream socket: ``sendSome(_:_:)``, ``closeSocket(_:)``).
public enum ControlChannelSocket {
    /// A stream socket's address for `path`, or nil when the path does not fit `sun_path`.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return address
    }

    /// A new `AF_UNIX` stream socket (close-on-exec), or -1.
    static func makeSocket() -> Int32 { POSIX.streamSocket(AF_UNIX) }

    /// `connect(2)` to `path`; errno on failure.
    static func connect(_ fd: Int32, to path: String) -> Int32? {
        guard let address = address(path) else { return ENAMETOOLONG }
        let result = POSIX.withSocketAddress(address) { socketAddress, length in
            #if canImport(Glibc)
            Glibc.connect(fd, socketAddress, length)
            #else
            Darwin.connect(fd, socketAddress, length)
            #endif
        }
        return result == 0 ? nil : errno
    }

    /// Writes all of `bytes`; false on error.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        (try? POSIX.sendAll(fd, bytes)) != nil
    }

    /// What one non-blocking `send(2)` did.
    public enum SendResult: Equatable, Sendable {
        /// This many bytes went (maybe fewer than offered).
        case sent(Int)
        /// The socket's buffer is full: try again when `poll` says it can take more.
        case full
        /// The peer is gone, or the socket failed.
        case failed
    }

    /// Sends what the socket takes of `bytes` now, never waiting and never raising `SIGPIPE`.
    public static func sendSome(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> SendResult {
        guard !bytes.isEmpty else { return .sent(0) }
        while true {
            let count = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                #else
                send(fd, buffer.baseAddress, buffer.count, MSG_DONTWAIT)
                #endif
            }
            if count > 0 { return .sent(count) }
            if count < 0 && errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .full : .failed
        }
    }

    /// Makes `fd` non-blocking and close-on-exec.
    static func configureAccepted(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// The user id of the process at the other end of a connected Unix socket (for a client,
    /// the process that listens: the kernel took its credentials when it called `listen`).
    static func peerUID(_ fd: Int32) -> UInt32? {
        #if canImport(Glibc)
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc exports it only with _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
        var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return credentials.uid
        #else
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard getpeereid(fd, &uid, &gid) == 0 else { return nil }
        return uid
        #endif
    }

    /// `user nobody (uid 65534)`, or `uid 65534` for an id with no name, for messages.
    static func user(_ uid: UInt32) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "user \(String(cString: name)) (uid \(uid))"
    }

    /// `close(2)`, its result ignored (the descriptor is gone either way).
    public static func closeSocket(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    static func errorText(_ code: Int32) -> String { SystemCallError.text(code) }
}
