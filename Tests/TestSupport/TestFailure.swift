/// A failed expectation inside a helper, reported as a thrown error. Equatable, so that a test
/// can expect the exact failure: `#expect(throws: TestFailure("expected CTAP2_OK, got …"))`.
public struct TestFailure: Error, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
