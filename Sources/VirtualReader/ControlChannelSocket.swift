#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The Unix-domain socket calls the control channel's server and client share.
enum ControlChannelSocket {
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
    static func makeSocket() -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        return fd
    }

    /// `connect(2)` to `path`; errno on failure.
    static func connect(_ fd: Int32, to path: String) -> Int32? {
        guard var address = address(path) else { return ENAMETOOLONG }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                #if canImport(Glibc)
                Glibc.connect(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                #else
                Darwin.connect(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                #endif
            }
        }
        return result == 0 ? nil : errno
    }

    /// Writes all of `bytes`; false on error.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        (try? POSIX.sendAll(fd, bytes)) != nil
    }

    static func closeSocket(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    static func errorText(_ code: Int32) -> String { SystemCallError.text(code) }
}
