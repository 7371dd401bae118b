#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a server does to make a listening stream socket, written once for any address family
/// (the control channel's Unix socket, the card page's TCP one).
extension POSIX {
    /// A new stream socket of `family` (`AF_UNIX`, `AF_INET`), close-on-exec: its descriptor, or
    /// -1 with `errno` set, as `socket(2)` answers.
    public static func streamSocket(_ family: Int32) -> Int32 {
        #if canImport(Glibc)
        socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        socket(family, SOCK_STREAM, 0)
        #endif
    }

    /// `bind(2)` of `descriptor` to `address`, a `sockaddr_un`, `sockaddr_in`, … (the error names
    /// the call `call`).
    public static func bind<Address>(_ descriptor: Int32, to address: Address, call: String = "bind") throws(SystemCallError) {
        let result = withSocketAddress(address) { socketAddress, length in
            #if canImport(Glibc)
            Glibc.bind(descriptor, socketAddress, length)
            #else
            Darwin.bind(descriptor, socketAddress, length)
            #endif
        }
        guard result == 0 else { throw SystemCallError(call) }
    }

    /// `body`'s answer to `address` (a `sockaddr_un`, `sockaddr_in`, …) as the socket calls take
    /// one: a `sockaddr` pointer and the address's length.
    public static func withSocketAddress<Address, Answer>(_ address: Address,
                                                          _ body: (UnsafePointer<sockaddr>, socklen_t) -> Answer) -> Answer {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// `listen(2)` on the bound `descriptor` with room for `backlog` connections waiting, then
    /// non-blocking, so that a server's accept loop never waits in `accept(2)`.
    public static func listen(_ descriptor: Int32, backlog: Int32 = 16) throws(SystemCallError) {
        #if canImport(Glibc)
        let result = Glibc.listen(descriptor, backlog)
        #else
        let result = Darwin.listen(descriptor, backlog)
        #endif
        guard result == 0 else { throw SystemCallError("listen") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }
}
