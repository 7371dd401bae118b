#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing lines to stdout and stderr, flushed at once (the tool's output is read by
/// scripts and test harnesses while it runs).
enum Console {
    static func output(_ text: String) {
        fputs(text.hasSuffix("\n") ? text : text + "\n", stdout)
        fflush(stdout)
    }

    static func error(_ text: String) {
        fputs(text.hasSuffix("\n") ? text : text + "\n", stderr)
        fflush(stderr)
    }
}
