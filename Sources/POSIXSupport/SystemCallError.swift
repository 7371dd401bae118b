#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed: which call, and the `errno` it left.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name as a person would look it up (`fsync`, `rename`, …).
    public let call: String
    /// The `errno` value.
    public let code: Int32

    /// The failure of `call`, with `errno` as it is now unless `code` is given.
    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// `call: reason`, e.g. `fsync: Input/output error`.
    public var description: String { "\(call): \(Self.text(code))" }

    /// The C library's text for an `errno` value.
    public static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
