#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// Writes a transcript to a file as it happens: every call is one `write(2)` of whole lines
/// on a descriptor opened with `O_APPEND`, nothing buffered in the process. A recording
/// killed at any moment leaves every line written before it, and since an exchange's `>` and
/// `<` lines go out in one write, the file never ends in a command without its response.
public final class TranscriptFileWriter {
    /// The file written.
    public let path: String
    private var descriptor: Int32

    /// Creates (or truncates) the file at `path` and writes `headers` to it.
    public init(path: String, headers: [Transcript.Header]) throws(TranscriptFileError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TranscriptFileError(path: path, reason: "cannot create: \(Self.errnoText())") }
        let headerText = Transcript(headers: headers).text
        try write(headerText)
    }

    deinit {
        close()
    }

    /// Appends the lines of `entry` (an exchange is its `>` and `<` lines together).
    public func append(_ entry: TranscriptEntry) throws(TranscriptFileError) {
        var lines = Transcript(entries: [entry]).text.split(separator: "\n", omittingEmptySubsequences: false)
        // `text` starts with the `@format` line a header-less transcript gets.
        lines.removeFirst()
        try write(lines.joined(separator: "\n"))
    }

    /// Closes the file; later appends fail.
    public func close() {
        if descriptor >= 0 {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
            descriptor = -1
        }
    }

    private func write(_ text: String) throws(TranscriptFileError) {
        guard descriptor >= 0 else { throw TranscriptFileError(path: path, reason: "the file is closed") }
        do throws(SystemCallError) {
            try POSIX.writeAll(descriptor, text.utf8)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot write: \(SystemCallError.text(error.code))")
        }
    }

    private static func errnoText() -> String {
        SystemCallError.text(errno)
    }
}
