#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe: other threads (or a signal handler) write a byte to wake a thread out of `poll`.
/// ``signal()`` only calls `write(2)`, which is async-signal-safe.
public final class WakePipe: @unchecked Sendable {
    // Both descriptors are set once in init and closed in deinit; nothing else mutates them.
    /// The end to poll for `POLLIN`.
    public let readEnd: Int32
    private let writeEnd: Int32

    /// A new pipe, both ends non-blocking and closed on exec.
    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Wakes the thread polling ``readEnd``; a full pipe already means "woken", so EAGAIN is fine.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe so the next `poll` blocks again.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    /// Blocks until ``signal()`` is called or `timeout` has passed (nil: no time-out); whether it
    /// was woken. The pipe is drained, so the next wait blocks again.
    @discardableResult
    public func wait(upTo timeout: Duration?) -> Bool {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        let ready = (try? POSIX.poll(&fds, timeout: timeout)) ?? 0
        guard ready > 0 else { return false }
        drain()
        return true
    }
}
