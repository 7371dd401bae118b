//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Writing items one by one, for a response that knows its own canonical order and is sent
/// often enough that building a ``CBORValue`` tree for it shows (getAssertion: the tree, its
/// encoding and its release cost a third of what the card does besides the signature).
///
/// The caller writes a map's head with its member count, then each member's key and value,
/// keys in CTAP2 canonical order (CTAP 2.1 §8). Each function writes the shortest head, as
/// ``CBOREncoder/encode(_:)`` does, so a writer in canonical order produces the same bytes.
extension CBOREncoder {
    /// Appends the head of a map of `count` members.
    public static func appendMapHead(count: Int, to output: inout [UInt8]) {
        appendHead(majorType: 5, argument: UInt64(count), to: &output)
    }

    /// Appends an unsigned integer (a member key, a count).
    public static func appendUnsigned(_ value: UInt64, to output: inout [UInt8]) {
        appendHead(majorType: 0, argument: value, to: &output)
    }

    /// Appends a byte string.
    public static func appendBytes(_ bytes: [UInt8], to output: inout [UInt8]) {
        appendHead(majorType: 2, argument: UInt64(bytes.count), to: &output)
        output.append(contentsOf: bytes)
    }

    /// Appends a text string (its UTF-8).
    public static func appendText(_ text: String, to output: inout [UInt8]) {
        let utf8 = text.utf8
        appendHead(majorType: 3, argument: UInt64(utf8.count), to: &output)
        output.append(contentsOf: utf8)
    }
}
