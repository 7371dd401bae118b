/// A transcript file that cannot be written or read, naming the file.
public struct TranscriptFileError: Error, Equatable, CustomStringConvertible {
    /// The transcript file.
    public let path: String
    /// What went wrong.
    public let reason: String

    /// An error about the file at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `transcript PATH: reason`.
    public var description: String { "transcript \(path): \(reason)" }
}
