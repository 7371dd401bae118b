import Foundation

extension Transcript {
    /// Reads and parses the transcript file at `path`. Throws ``TranscriptFileError`` when it
    /// cannot be read and ``TranscriptError`` (with the line) when it cannot be parsed.
    public static func load(path: String) throws -> Transcript {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TranscriptFileError(path: path, reason: "not UTF-8 text")
        }
        return try parse(text)
    }

    /// Writes ``text`` to `path` (replacing the file atomically).
    public func write(toFile path: String) throws(TranscriptFileError) {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }
}
