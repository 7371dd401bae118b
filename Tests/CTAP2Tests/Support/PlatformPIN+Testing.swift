import Testing
import TestSupport

extension PlatformPIN: CustomTestStringConvertible {
    /// `PIN/UV auth protocol 1`, as a test's argument shows.
    public var testDescription: String { "PIN/UV auth protocol \(rawValue)" }
}
