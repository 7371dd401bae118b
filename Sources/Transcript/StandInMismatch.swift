/// A request a stand-in did not expect: which transcript message it was waiting for, what
/// came, and the first differing field. The stand-in answered it with CTAP1_ERR_OTHER (`7F`)
/// for CTAP2, or `6F00` for a U2F APDU.
public struct StandInMismatch: Equatable, Sendable, CustomStringConvertible {
    /// The line of the expected message, nil when the transcript had no more requests.
    public var expectedLine: Int?
    /// The expected message's name, nil when the transcript had no more requests.
    public var expected: String?
    /// What the host sent (its name).
    public var received: String
    /// The first differing field, when both were the same kind of request.
    public var difference: FieldDifference?
    /// The request as it came (diagnostic notation or hex).
    public var receivedRequest: String
    /// What the stand-in answered instead.
    public var answer: String

    /// The report: what was expected, what came, the first difference, the request.
    public var description: String {
        var lines: [String] = []
        if let expected, let expectedLine {
            lines.append("stand-in mismatch: expected \(expected) (transcript line \(expectedLine)), got \(received); answered \(answer)")
        } else {
            lines.append("stand-in mismatch: the transcript has no more requests, got \(received); answered \(answer)")
        }
        if let difference { lines.append("  first difference: \(difference)") }
        lines.append("  request: \(receivedRequest)")
        return lines.joined(separator: "\n")
    }
}
