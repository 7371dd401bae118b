#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// The write end of the relay's pipe, read by the signal handler. A plain integer global:
/// reading it is all the handler does besides `write(2)`, both async-signal-safe.
nonisolated(unsafe) private var signalRelayPipe: Int32 = -1

/// Turns signals into calls on an ordinary thread.
///
/// The handler installed with `sigaction` only writes the signal's number into a pipe (both
/// async-signal-safe); a thread of the relay reads it and calls `handler` there, where any
/// work is allowed. Plain POSIX, so it does not depend on how a dispatch signal source is
/// implemented on the platform.
final class SignalRelay: @unchecked Sendable {
    // Sendability: `handler` is only called on the relay's thread; the descriptors are
    // immutable after init.
    private let handler: @Sendable (Int32) -> Void
    private let readEnd: Int32

    /// Installs handlers for `signals` and starts relaying them to `handler`. Only one relay
    /// may exist in a process.
    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.handler = handler
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        readEnd = fds[0]
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        signalRelayPipe = fds[1]

        for number in signals {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalRelayPipe, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalRelayPipe, &byte, 1)
            }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            _ = sigaction(number, &action, nil)
        }

        // The thread keeps the relay alive; it runs as long as the process.
        try? POSIXThread.start { self.relay() }.detach()
    }

    private func relay() {
        while let byte = try? POSIX.read(readEnd, upTo: 1).first {
            handler(Int32(byte))
        }
    }
}
