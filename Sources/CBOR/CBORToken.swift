//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// One lexical item of CTAP2 CBOR as ``CBORReader/next()`` reads it: a scalar whole, a string
/// with where its content lies in the reader's input (``CBORReader/subscript(_:)``), or the head
/// of an array or map whose elements follow.
///
/// A plain value without references, so reading, matching and dropping tokens costs no
/// reference counting: a string's bytes are taken from the input only by the reading that
/// keeps them.
public enum CBORToken: Sendable, Equatable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1); the value is `-1 - n`.
    case negative(UInt64)
    /// A byte string (major type 2): the indices of its content in the reader's input.
    case bytes(Range<Int>)
    /// A text string (major type 3): the indices of its UTF-8, checked well-formed, in the
    /// reader's input.
    case text(Range<Int>)
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
