#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import POSIXSupport

/// Writes a transcript to a file as it happens: every call is one `write(2)` of whole lines
/// on a descriptor opened with `O_APPEND`, nothing buffered in the process. A recording
/// killed at any moment leaves every line written before it, and since an exchange's `>` and
/// `<` lines go out in one write, the file never ends in a command without its response.
///
/// A file can hold one recording (``Mode/replace``) or one session per recording
/// (``Mode/appendSession``, see ``Transcript/sessions``).
public final class TranscriptFileWriter {
    /// What to do with a transcript the file already holds.
    public enum Mode: Sendable {
        /// Replace it: the file holds this recording only.
        case replace
        /// Keep it and add this recording as its next session, after a `# session N recorded
        /// DATE from SOURCE` line. The headers must be the file's but for `@source` and `@date`
        /// (the marker says those), and the card must not start from a card image (`@image`
        /// other than `blank`): a later session of such a card starts from what the image holds
        /// by then, which the transcript cannot say. A file that does not exist, is empty or
        /// holds no entry yet is written as by ``replace``.
        case appendSession
    }

    /// The file written.
    public let path: String
    /// The session this writer records: 1 for a new file, N + 1 when it appends to a file of
    /// N sessions.
    public let session: Int
    /// The file, open for appending; nil once closed.
    private var file: FileHandle?

    /// Creates the file at `path` and writes `headers` to it, or, with `.appendSession` and a
    /// transcript in the file already, checks that this session may join it and writes its
    /// session marker.
    ///
    /// - Throws: ``TranscriptFileError`` naming the file: it cannot be created or written; or,
    ///   appending, it cannot be read or parsed, ends in the middle of a line, or its headers
    ///   are not this session's.
    public init(path: String, headers: [Transcript.Header], mode: Mode = .replace) throws(TranscriptFileError) {
        self.path = path
        let existing = mode == .appendSession ? try Self.transcriptToAppendTo(at: path) : nil
        if let existing {
            if let problem = Transcript.appendProblem(fileHeaders: existing.headers, sessionHeaders: headers) {
                throw TranscriptFileError(path: path, reason: "cannot append a session to it: \(problem)")
            }
            session = existing.sessions.count + 1
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw TranscriptFileError(path: path, reason: "cannot open: \(Self.errnoText())") }
            file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try append(.comment(Transcript.sessionMarker(number: session, headers: headers)))
        } else {
            session = 1
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw TranscriptFileError(path: path, reason: "cannot create: \(Self.errnoText())") }
            file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            let headerText = Transcript(headers: headers).text
            try write(headerText)
        }
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
        try? file?.close()
        file = nil
    }

    private func write(_ text: String) throws(TranscriptFileError) {
        guard let file else { throw TranscriptFileError(path: path, reason: "the file is closed") }
        do throws(SystemCallError) {
            try POSIX.writeAll(file.fileDescriptor, text.utf8)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot write: \(SystemCallError.text(error.code))")
        }
    }

    /// The transcript a session would be appended to, nil when the file does not exist or
    /// holds no entry yet (then it is written anew: nothing in it is lost but comments).
    static func transcriptToAppendTo(at path: String) throws(TranscriptFileError) -> Transcript? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text: String
        do {
            text = try Transcript.text(ofFileAt: path)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot append a session to it: \(error.reason)")
        }
        guard !text.isEmpty else { return nil }
        guard text.hasSuffix("\n") || text.hasSuffix("\r\n") else {
            throw TranscriptFileError(path: path, reason: "cannot append a session to it: it ends in the middle of a line (was the last session cut short?)")
        }
        let transcript: Transcript
        do {
            transcript = try Transcript.parse(text)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot append a session to it: line \(error.line ?? 1): \(error.message)")
        }
        return transcript.entries.isEmpty ? nil : transcript
    }

    private static func errnoText() -> String {
        SystemCallError.text(errno)
    }
}
