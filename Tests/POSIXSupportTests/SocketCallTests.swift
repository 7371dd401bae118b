#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport
import Synchronization
import Testing

/// The socket calls the vpcd connection makes on its hot path (`recv`, `sendmsg`), the wake pipe a
/// thread waits on, and `poll`: each resumed after a signal, each failure an error naming its call.
@Suite("POSIX: sockets, the wake pipe and poll")
struct SocketCallTests {
    /// A connected pair of stream sockets, closed when the test ends.
    final class SocketPair {
        let one: Int32
        let two: Int32

        init() throws {
            var fds: [Int32] = [-1, -1]
            #if canImport(Glibc)
            let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            #else
            let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &fds)
            #endif
            try #require(made == 0)
            (one, two) = (fds[0], fds[1])
        }

        deinit {
            close(one)
            close(two)
        }
    }

    static func receive(_ descriptor: Int32, upTo count: Int, flags: Int32 = 0) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try POSIX.receive(descriptor, into: buffer, flags: flags) }
        }
        bytes.removeSubrange(try result.get()...)
        return bytes
    }

    @Test("sendMessage sends header and body in one call; receive reads them; nothing there is EAGAIN from recv")
    func sendAndReceive() throws {
        let pair = try SocketPair()
        let sent = try [UInt8]([0x00, 0x03]).withUnsafeBytes { header in
            try [UInt8]([0xA1, 0xB2, 0xC3]).withUnsafeBytes { body in try POSIX.sendMessage(pair.one, header: header, body: body) }
        }
        #expect(sent == 5)
        #expect(try Self.receive(pair.two, upTo: 16) == [0x00, 0x03, 0xA1, 0xB2, 0xC3])
        #expect(throws: SystemCallError("recv", code: EAGAIN)) { try Self.receive(pair.two, upTo: 16, flags: Int32(MSG_DONTWAIT)) }
        shutdown(pair.one, Int32(SHUT_WR))
        #expect(try Self.receive(pair.two, upTo: 16) == [], "the peer closed: 0 bytes")
    }

    @Test("sendMessage to a closed peer is EPIPE from sendmsg, not a SIGPIPE that ends the process")
    func sendToClosedPeer() throws {
        let pair = try SocketPair()
        shutdown(pair.two, Int32(SHUT_RD))
        shutdown(pair.one, Int32(SHUT_WR))
        #expect(throws: SystemCallError("sendmsg", code: EPIPE)) {
            try [UInt8]([0, 1]).withUnsafeBytes { header in
                try [UInt8]([9]).withUnsafeBytes { body in try POSIX.sendMessage(pair.one, header: header, body: body) }
            }
        }
    }

    @Test("a signal during a blocking receive does not end it: the data that comes after is returned")
    func receiveResumesAfterSignal() throws {
        let pair = try SocketPair()
        // A handler without SA_RESTART, so that the blocked recv is interrupted (EINTR).
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { _ in }
        #else
        action.__sigaction_u.__sa_handler = { _ in }
        #endif
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        _ = sigaction(SIGUSR2, &action, &previous)
        defer { _ = sigaction(SIGUSR2, &previous, nil) }

        let received = Mutex<Result<[UInt8], SystemCallError>?>(nil)
        let thread = Mutex<pthread_t?>(nil)
        let descriptor = pair.two
        let reader = try POSIXThread.start {
            thread.withLock { $0 = pthread_self() }
            let result = Result { () throws(SystemCallError) in try Self.receive(descriptor, upTo: 8) }
            received.withLock { $0 = result }
        }
        usleep(100_000)
        if let blocked = thread.withLock({ $0 }) { pthread_kill(blocked, SIGUSR2) }
        usleep(50_000)
        #expect(received.withLock { $0 } == nil, "still waiting after the signal")
        #expect(write(pair.one, [0x42], 1) == 1)
        reader.join()
        #expect(try received.withLock { $0 }?.get() == [0x42])
    }

    @Test("WakePipe: a wait ends when signalled (true, drained) or at its time-out (false)")
    func wakePipe() {
        let pipe = WakePipe()
        let clock = ContinuousClock()
        var woken = true
        #expect(clock.measure { woken = pipe.wait(upTo: .milliseconds(30)) } >= .milliseconds(30))
        #expect(!woken)
        pipe.signal()
        pipe.signal()
        #expect(pipe.wait(upTo: .seconds(5)))
        #expect(!pipe.wait(upTo: .zero), "drained: both signals were taken by the one wait")
    }

    @Test("poll: ready descriptors counted; a time-out of zero returns at once")
    func poll() throws {
        let pair = try SocketPair()
        var fds = [pollfd(fd: pair.two, events: Int16(POLLIN), revents: 0)]
        #expect(try POSIX.poll(&fds, timeout: .zero) == 0)
        #expect(write(pair.one, [1], 1) == 1)
        #expect(try POSIX.poll(&fds, timeout: .seconds(5)) == 1)
        #expect(fds[0].revents & Int16(POLLIN) != 0)
    }
}
