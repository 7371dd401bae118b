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
        if mode == .appendSession, let opened = try Self.openToAppend(path) {
            file = FileHandle(fileDescriptor: opened.descriptor, closeOnDealloc: true)
            let existing = opened.transcript
            if let problem = Transcript.appendProblem(fileHeaders: existing.headers, sessionHeaders: headers) {
                throw TranscriptFileError(path: path, reason: "cannot append a session to it: \(problem)")
            }
            session = existing.sessions.count + 1
            try append(.comment(Transcript.sessionMarker(number: session, headers: headers)))
            return
        }
        session = 1
        // A new file under a fresh name, renamed over `path` once it holds the headers: nothing at
        // `path` (a symbolic link planted there) is written through. Owner-only: a seeded
        // transcript's `@seed` recovers every key the card makes, and any transcript holds
        // what the host and the card said.
        let created: NewFile
        do {
            created = try NewFile.temporary(beside: path, mode: 0o600, flags: O_APPEND)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot create: \(SystemCallError.text(error.code))")
        }
        do {
            try POSIX.writeAll(created.descriptor, Transcript(headers: headers).text.utf8)
            try created.rename(over: path, durable: false)
        } catch {
            created.discard()
            throw TranscriptFileError(path: path, reason: "cannot create: \(SystemCallError.text(error.code))")
        }
        file = FileHandle(fileDescriptor: created.descriptor, closeOnDealloc: true)
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
        return try transcriptToAppendTo(text, path: path)
    }

    /// The file at `path`, open for appending, and the transcript it holds; nil when there is no
    /// file or it holds no entry yet. Not through a symbolic link, and only a regular file: the
    /// text read is the text appended to.
    private static func openToAppend(_ path: String) throws(TranscriptFileError) -> (descriptor: Int32, transcript: Transcript)? {
        let descriptor = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP {
                throw TranscriptFileError(path: path, reason: "cannot append a session to it: it is a symbolic link (give the file's own path)")
            }
            throw TranscriptFileError(path: path, reason: "cannot open: \(Self.errnoText())")
        }
        do {
            let status = try POSIX.status(of: descriptor)
            guard status.kind == .regularFile else {
                systemClose(descriptor)
                throw TranscriptFileError(path: path, reason: "cannot append a session to it: it is \(status.kind.rawValue)")
            }
            let bytes = try POSIX.readToEnd(descriptor)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                systemClose(descriptor)
                throw TranscriptFileError(path: path, reason: "cannot append a session to it: not UTF-8 text")
            }
            guard let transcript = try transcriptToAppendTo(text, path: path) else {
                systemClose(descriptor)
                return nil
            }
            return (descriptor, transcript)
        } catch let failure as TranscriptFileError {
            systemClose(descriptor)
            throw failure
        } catch {
            systemClose(descriptor)
            throw TranscriptFileError(path: path, reason: "cannot read: \(error)")
        }
    }

    /// The transcript in `text` a session would be appended to (nil: none yet).
    private static func transcriptToAppendTo(_ text: String, path: String) throws(TranscriptFileError) -> Transcript? {
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

private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
