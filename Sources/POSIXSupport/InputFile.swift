#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file read whole for what it holds (a profile, a transcript, a fingerprint, a log, a key),
/// its failure said in the user's terms (``InputFileError``): no Foundation error text, no
/// `NSCocoaErrorDomain`, whatever the file is (missing, unreadable, a directory, too large).
public enum InputFile {
    /// The bytes of the file at `path` (a symbolic link followed; a pipe such as `/dev/stdin` read
    /// to its end), at most `limit` of them.
    public static func read(_ path: String, limit: Int = 256 << 20) throws(InputFileError) -> [UInt8] {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw InputFileError(path: path, reason: InputFileError.reason(opening: errno)) }
        defer { close(descriptor) }
        do {
            let status = try POSIX.status(of: descriptor)
            guard status.kind != .directory else { throw InputFileError(path: path, reason: "it is a directory, not a file") }
            guard status.size <= limit else {
                throw InputFileError(path: path, reason: "it is \(status.size) bytes, more than the \(limit) this reads")
            }
            var bytes: [UInt8] = []
            while true {
                let chunk = try POSIX.read(descriptor, upTo: 65536)
                if chunk.isEmpty { return bytes }
                bytes += chunk
                guard bytes.count <= limit else {
                    throw InputFileError(path: path, reason: "it holds more than the \(limit) bytes this reads")
                }
            }
        } catch let error as InputFileError {
            throw error
        } catch {
            throw InputFileError(path: path, reason: "\(error)")
        }
    }

    /// The file's text (UTF-8; a byte that is none is read as U+FFFD, so that a parser names the line).
    public static func text(_ path: String, limit: Int = 256 << 20) throws(InputFileError) -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }
}

/// A file that could not be read, and why, in the user's terms: `there is no such file`,
/// `this process may not read it (permission denied)`, `it is a directory, not a file`.
public struct InputFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path as given.
    public let path: String
    /// Why it could not be read.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `cannot read PATH: REASON`.
    public var description: String { "cannot read \(path): \(reason)" }

    /// Why `open` failed with `code`.
    static func reason(opening code: Int32) -> String {
        switch code {
        case ENOENT: "there is no such file"
        case EACCES: "this process may not read it (permission denied)"
        case ENOTDIR: "a directory on its path is a file"
        case ELOOP: "its symbolic links go round in a loop"
        default: "open: \(SystemCallError.text(code))"
        }
    }
}
