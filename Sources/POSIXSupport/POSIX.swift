#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls the emulator makes in a loop, written once: a signal (`EINTR`) resumes the
/// call and a short transfer continues it, so no caller repeats the loop.
///
/// Each function throws ``SystemCallError`` naming the call that failed.
public enum POSIX {
    /// Writes all of `bytes` to `descriptor` with `write(2)`.
    public static func writeAll(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(SystemCallError) {
        try transferAll(Array(bytes), call: "write") { buffer, _ in
            write(descriptor, buffer.baseAddress, buffer.count)
        }
    }

    /// Writes all of `bytes` to a connected socket with `send(2)`; a closed peer is an error
    /// (`EPIPE`), never a `SIGPIPE` that would end the process.
    public static func sendAll(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(SystemCallError) {
        try transferAll(Array(bytes), call: "send") { buffer, _ in
            #if canImport(Glibc)
            send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            #else
            send(descriptor, buffer.baseAddress, buffer.count, 0)
            #endif
        }
    }

    /// Writes all of `bytes` to `descriptor` at byte `offset` with `pwrite(2)`.
    public static func pwriteAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemCallError) {
        try transferAll(bytes, call: "pwrite") { buffer, done in
            pwrite(descriptor, buffer.baseAddress, buffer.count, off_t(offset + done))
        }
    }

    /// Reads at most `buffer.count` bytes into `buffer` with `read(2)` (a socket too: it is
    /// `recv` without flags); 0 at the end of the file or when the peer closed.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        while true {
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            #else
            let count = Darwin.read(descriptor, buffer.baseAddress, buffer.count)
            #endif
            if count >= 0 { return count }
            guard errno == EINTR else { throw SystemCallError("read") }
        }
    }

    /// Reads at most `maxCount` bytes; empty at the end of the file or when the peer closed.
    public static func read(_ descriptor: Int32, upTo maxCount: Int) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(1, maxCount))
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try read(descriptor, into: buffer) }
        }
        bytes.removeSubrange(try result.get()...)
        return bytes
    }

    /// Reads at most `maxCount` bytes from byte `offset` on with `pread(2)`, fewer only at the end of
    /// the file; the file's offset does not move.
    public static func pread(_ descriptor: Int32, upTo maxCount: Int, at offset: Int) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: maxCount)
        var done = 0
        while done < maxCount {
            let count = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.pread(descriptor, buffer.baseAddress! + done, maxCount - done, off_t(offset + done))
                #else
                Darwin.pread(descriptor, buffer.baseAddress! + done, maxCount - done, off_t(offset + done))
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError("pread")
            }
            if count == 0 { break }
            done += count
        }
        bytes.removeSubrange(done...)
        return bytes
    }

    /// Reads until the end of the file.
    public static func readToEnd(_ descriptor: Int32) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try read(descriptor, upTo: 65536)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// `poll(2)` until a descriptor is ready (the count of ready ones) or `timeout` has passed
    /// (0; nil: no time-out). A signal does not end the wait early or extend it.
    public static func poll(_ descriptors: inout [pollfd], timeout: Duration?) throws(SystemCallError) -> Int {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                // Rounded up: poll must not return before the deadline and make the caller spin.
                milliseconds = left <= .zero ? 0 : Int32(clamping: left.components.seconds * 1000
                                                                 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            }
            #if canImport(Glibc)
            let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            #else
            let ready = Darwin.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            #endif
            if ready > 0 { return Int(ready) }
            if ready < 0 {
                guard errno == EINTR else { throw SystemCallError("poll") }
                continue
            }
            if let deadline, clock.now >= deadline { return 0 }
        }
    }

    /// Sleeps the calling thread for `duration`, the whole of it even when a signal arrives.
    public static func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }

    /// The loop of every "all of it" call: `step` transfers from the buffer it is given (the
    /// bytes still to go; the second argument counts those already done) and returns what
    /// `write(2)` would.
    private static func transferAll(_ bytes: [UInt8], call: String,
                                    _ step: (UnsafeRawBufferPointer, Int) -> Int) throws(SystemCallError) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { step(UnsafeRawBufferPointer(rebasing: $0[done...]), done) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call)
            }
            // Writing nothing to a non-empty request makes no progress; retrying would spin.
            guard count > 0 else { throw SystemCallError(call, code: EIO) }
            done += count
        }
    }
}
