/// Hex as tests write it, read and written here rather than with FIDOWire's `Hex`: the expected
/// bytes of a test (CBOR vectors, APDUs, ATRs) must not come from a helper of the code under test,
/// so that a fault in `Hex` cannot make a test agree with itself.
public enum TestHex {
    /// Bytes from hex digits of either case, with any whitespace between them; nil for an odd
    /// number of digits or any other character.
    public static func bytes(_ text: String) -> [UInt8]? {
        var digits: [UInt8] = []
        for scalar in text.unicodeScalars where !scalar.properties.isWhitespace {
            guard scalar.isASCII, let value = UInt8(String(scalar), radix: 16) else { return nil }
            digits.append(value)
        }
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// The bytes as hex digits without separators, lower-case unless asked otherwise.
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = Array(uppercase ? "0123456789ABCDEF" : "0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}

/// The bytes a test wrote in hex (spaces allowed). Test data is written by hand, so hex that does
/// not parse is a mistake in the test: it stops the run, naming the text and the line.
public func hex(_ text: String, file: StaticString = #file, line: UInt = #line) -> [UInt8] {
    guard let bytes = TestHex.bytes(text) else { preconditionFailure("not hex: \(text)", file: file, line: line) }
    return bytes
}
