import POSIXSupport

extension Transcript {
    /// Reads and parses the transcript file at `path`.
    ///
    /// - Parameter validation: `.complete` (the default) for a transcript to replay, check or
    ///   stand in with: it also needs `@format`, an exchange and whole responses (see
    ///   ``Validation/complete``); `.syntax` for a recording that may not have an exchange yet.
    /// - Throws: ``TranscriptFileError`` when the file cannot be read, ``TranscriptError``
    ///   naming the file and the line when it cannot be parsed or used.
    public static func load(path: String, validation: Validation = .complete) throws -> Transcript {
        let text = try text(ofFileAt: path)
        do {
            return try parse(text, validation: validation)
        } catch {
            throw error.inFile(path)
        }
    }

    /// The text of the file at `path`.
    static func text(ofFileAt path: String) throws(TranscriptFileError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot read: \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw TranscriptFileError(path: path, reason: "not UTF-8 text")
        }
        return text
    }

    /// Writes ``text`` to `path`, replacing the file in one step (``NewFile/replace(_:with:mode:durable:)``:
    /// a symbolic link at `path` is replaced, not written through). Owner-only (0600): a seeded
    /// transcript's `@seed` recovers every key the card makes.
    public func write(toFile path: String) throws(TranscriptFileError) {
        do {
            try NewFile.replace(path, with: Array(text.utf8), mode: 0o600)
        } catch {
            throw TranscriptFileError(path: path, reason: "cannot write: \(error.failure)")
        }
    }
}
