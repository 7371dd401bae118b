#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FIDOWire
import POSIXSupport

/// Writing lines to stdout and stderr. Straight `write(2)` calls: nothing is buffered, so a
/// script or test harness reading the tool's output sees each line as it happens.
///
/// Every line goes through ``DisplayText/escaped(_:keepingLineBreaks:)`` keeping its line breaks:
/// a control character that reached a message from a card or a file is printed as an escape,
/// never acted on by the terminal. Each place that puts such a string into a message escapes it
/// itself as well, line breaks included, so that no string from outside can start a line.
enum Console {
    static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        // Nowhere to report a console that cannot be written to.
        let shown = DisplayText.escaped(text, keepingLineBreaks: true)
        try? POSIX.writeAll(descriptor, (shown.hasSuffix("\n") ? shown : shown + "\n").utf8)
    }
}
