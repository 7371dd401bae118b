import FIDOWire

/// A transcript that cannot be read or used: what is wrong, the line (1-based) and, when the
/// text came from a file, the file.
///
/// `description` is `FILE:LINE: message` (the form compilers use, so editors can jump to it),
/// `FILE: message` for a problem of the whole file (it has no exchanges), and
/// `transcript line LINE: message` for text that did not come from a file.
public struct TranscriptError: Error, Equatable, CustomStringConvertible {
    /// The line the problem is on; nil when it is the whole transcript's (no exchanges).
    public let line: Int?
    /// What is wrong.
    public let message: String
    /// The transcript file, when the text was read from one (``Transcript/load(path:validation:)``).
    public let file: String?

    /// An error about `line` (nil: the whole transcript) of the text read from `file`.
    public init(line: Int?, message: String, file: String? = nil) {
        self.line = line
        self.message = message
        self.file = file
    }

    /// `FILE:LINE: message`, `FILE: message`, `transcript line LINE: message` or `transcript: message`.
    /// The message quotes the file's text, so it is escaped (``DisplayText``).
    public var description: String {
        let message = DisplayText.escaped(message)
        return switch (file, line) {
        case let (file?, line?): "\(file):\(line): \(message)"
        case let (file?, nil): "\(file): \(message)"
        case let (nil, line?): "transcript line \(line): \(message)"
        case (nil, nil): "transcript: \(message)"
        }
    }

    /// The same error, naming `file`.
    func inFile(_ file: String) -> TranscriptError {
        TranscriptError(line: line, message: message, file: file)
    }
}
