/// A difference found by ``CBORComparison``: where, and both sides.
public struct FieldDifference: Equatable, Sendable, CustomStringConvertible {
    /// The first differing field.
    public var path: FieldPath
    /// What the transcript has there (diagnostic notation, long byte strings abbreviated).
    public var expected: String
    /// What came instead.
    public var actual: String
    /// Why they count as different (e.g. "different value", "missing", "different type").
    public var reason: String

    /// A difference at `path`.
    public init(path: FieldPath, expected: String, actual: String, reason: String) {
        self.path = path
        self.expected = expected
        self.actual = actual
        self.reason = reason
    }

    /// `path: reason: expected …, got …`.
    public var description: String {
        "\(path): \(reason): expected \(expected), got \(actual)"
    }
}
