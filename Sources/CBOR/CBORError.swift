//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// The reasons ``CBORDecoder`` rejects an input.
///
/// The decoder accepts exactly the CTAP2 subset of CBOR: well-formed, definite-length,
/// shortest-form, tag-free and float-free items with unique map keys. Each other input
/// is reported with the most specific of these errors.
public enum CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input ends inside a data item (in a head, or before all the elements of
    /// an array or map have been read).
    case truncated
    /// Bytes follow the single top-level data item.
    case trailingBytes(count: Int)
    /// An item uses additional information 31 (indefinite length, or the "break"
    /// stop code), which CTAP2 does not allow.
    case indefiniteLength
    /// An item uses one of the reserved additional information values 28, 29 or 30.
    case reservedAdditionalInfo
    /// An item has a major type outside the CTAP2 subset (6: tags).
    case unsupportedMajorType(UInt8)
    /// A major type 7 item other than `false`, `true`, `null` and `undefined`.
    ///
    /// The payload is the simple value (for example 16 for `0xf0`, 255 for `0xf8 0xff`),
    /// or the additional information 25, 26 or 27 for half-, single- and
    /// double-precision floats.
    case unsupportedSimpleValue(UInt8)
    /// Arrays and maps are nested deeper than the decoder's maximum depth.
    ///
    /// A top-level array or map is at depth 1; a top-level scalar is at depth 0.
    case nestingTooDeep(limit: Int)
    /// A byte or text string is longer than the rest of the input, or an array or map
    /// declares more elements than there are bytes left (every element needs at least
    /// one byte). Detected before allocating anything for the item.
    case lengthExceedsInput(declared: UInt64, available: Int)
    /// A text string is not valid UTF-8.
    case invalidUTF8
    /// A map contains the same key twice.
    case duplicateMapKey
    /// An integer, length, count or simple value is not encoded in its shortest form
    /// (for example `0x18 0x05` for 5).
    case nonCanonicalEncoding

    /// A short human-readable explanation of the error.
    public var description: String {
        switch self {
        case .truncated:
            return "CBOR input ends inside a data item"
        case .trailingBytes(let count):
            return "\(count) unexpected byte(s) after the CBOR data item"
        case .indefiniteLength:
            return "indefinite-length CBOR items are not allowed"
        case .reservedAdditionalInfo:
            return "reserved CBOR additional information value (28...30)"
        case .unsupportedMajorType(let major):
            return "unsupported CBOR major type \(major)"
        case .unsupportedSimpleValue(let value):
            return "unsupported CBOR simple value or float (\(value))"
        case .nestingTooDeep(let limit):
            return "CBOR arrays/maps nested deeper than \(limit)"
        case .lengthExceedsInput(let declared, let available):
            return "CBOR item declares length \(declared) but only \(available) byte(s) remain"
        case .invalidUTF8:
            return "CBOR text string is not valid UTF-8"
        case .duplicateMapKey:
            return "CBOR map contains a duplicate key"
        case .nonCanonicalEncoding:
            return "CBOR integer or length is not in shortest form"
        }
    }
}
