//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// One lexical item of CTAP2 CBOR as ``CBORReader/next()`` reads it: a scalar whole, a string
/// with its content, or the head of an array or map whose elements follow.
public enum CBORToken: Sendable, Equatable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1); the value is `-1 - n`.
    case negative(UInt64)
    /// A byte string's content (major type 2), a slice of the reader's input.
    case bytes(ArraySlice<UInt8>)
    /// A text string's UTF-8 (major type 3), checked well-formed, a slice of the reader's input.
    case text(ArraySlice<UInt8>)
    /// An array's head (major type 4): `count` items follow, then ``CBORReader/endContainer()``.
    case array(count: Int)
    /// A map's head (major type 5): `count` key/value pairs follow, then
    /// ``CBORReader/endContainer()``.
    case map(count: Int)
    /// `false` or `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
}
