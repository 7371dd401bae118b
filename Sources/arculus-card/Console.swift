#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// Writing lines to stdout and stderr. Straight `write(2)` calls: nothing is buffered, so a
/// script or test harness reading the tool's output sees each line as it happens.
enum Console {
    static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        // Nowhere to report a console that cannot be written to.
        try? POSIX.writeAll(descriptor, (text.hasSuffix("\n") ? text : text + "\n").utf8)
    }
}
