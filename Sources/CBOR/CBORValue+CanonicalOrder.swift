//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

extension CBORValue {
    /// Whether this item sorts before `other` as a map key in CTAP2 canonical order
    /// (CTAP 2.1 §8, "CTAP2 canonical CBOR encoding form").
    ///
    /// Keys are ordered by major type first, then by the length of their encoding
    /// (shorter first), then by the bytes of their encoding (lexically). So `1 < 1000`,
    /// `-1 < -2` (encoded `0x20 < 0x21`), `"b" < "aa"`, and every unsigned integer sorts
    /// before every negative integer, which sorts before every byte string, and so on.
    ///
    /// The common key kinds (integers, strings, simple values) are compared without
    /// encoding them; arrays and maps are compared through their encodings.
    public func canonicallyPrecedes(_ other: CBORValue) -> Bool {
        let lhsMajor = self.majorType
        let rhsMajor = other.majorType
        if lhsMajor != rhsMajor {
            return lhsMajor < rhsMajor
        }
        switch (self, other) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)):
            // The head length grows with the argument, and heads of equal length hold
            // the argument big-endian, so the canonical order is the numeric order.
            return a < b
        case (.bytes(let a), .bytes(let b)):
            // Same reasoning for the length prefix; equal lengths compare by content.
            if a.count != b.count { return a.count < b.count }
            return a.lexicographicallyPrecedes(b)
        case (.text(let a), .text(let b)):
            let aCount = a.utf8.count
            let bCount = b.utf8.count
            if aCount != bCount { return aCount < bCount }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.array, .array), (.map, .map):
            return Self.canonicallyPrecedes(encoded: CBOREncoder.encode(self)[...], encoded: CBOREncoder.encode(other)[...])
        default:
            // Major type 7: all supported simple values encode as one byte.
            return self.simpleValueCode < other.simpleValueCode
        }
    }

    /// Whether the item encoded as `lhs` sorts before the one encoded as `rhs` in CTAP2
    /// canonical order (see ``canonicallyPrecedes(_:)``), compared on their encodings: the
    /// order a reader checks keys in.
    public static func canonicallyPrecedes(encoded lhs: ArraySlice<UInt8>, encoded rhs: ArraySlice<UInt8>) -> Bool {
        canonicallyPrecedes(lhs.indices, of: lhs, rhs.indices, of: rhs)
    }

    /// The same order for encodings compared where they lie: `lhs` in `left`, `rhs` in `right`.
    static func canonicallyPrecedes(_ lhs: Range<Int>, of left: ArraySlice<UInt8>,
                                    _ rhs: Range<Int>, of right: ArraySlice<UInt8>) -> Bool {
        guard !lhs.isEmpty, !rhs.isEmpty else { return lhs.isEmpty && !rhs.isEmpty }
        let lhsMajor = left[lhs.lowerBound] >> 5
        let rhsMajor = right[rhs.lowerBound] >> 5
        if lhsMajor != rhsMajor { return lhsMajor < rhsMajor }
        if lhs.count != rhs.count { return lhs.count < rhs.count }
        for offset in 0..<lhs.count where left[lhs.lowerBound &+ offset] != right[rhs.lowerBound &+ offset] {
            return left[lhs.lowerBound &+ offset] < right[rhs.lowerBound &+ offset]
        }
        return false
    }

    /// The one-byte encoding of a supported simple value (`0xf4...0xf7`), or 0 for
    /// other items.
    internal var simpleValueCode: UInt8 {
        switch self {
        case .bool(false): return 0xf4
        case .bool(true): return 0xf5
        case .null: return 0xf6
        case .undefined: return 0xf7
        default: return 0
        }
    }
}
