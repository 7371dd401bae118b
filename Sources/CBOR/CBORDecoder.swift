//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Decodes the CTAP2 subset of CBOR into ``CBORValue`` trees, built on ``CBORReader``: the
/// reader's tokens become the tree's nodes, so every check is the reader's.
///
/// The decoder is strict about everything CTAP2 forbids — indefinite lengths, tags,
/// floats, simple values other than `false`/`true`/`null`/`undefined`, non-shortest
/// heads, duplicate map keys and invalid UTF-8 — and lenient about map key order,
/// which it does not check.
///
/// It is safe on hostile input: every declared length is checked against the bytes
/// actually left before anything is allocated, and recursion never goes deeper than
/// `maximumDepth` levels of arrays and maps.
public enum CBORDecoder {
    /// The default limit on nested arrays and maps.
    ///
    /// A top-level array or map is at depth 1, so the default accepts up to 8 levels.
    public static let defaultMaximumDepth = 8

    /// Decodes exactly one data item that must span all of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The encoded data item.
    ///   - maximumDepth: The deepest nesting of arrays and maps accepted.
    /// - Returns: The decoded data item.
    /// - Throws: ``CBORError/trailingBytes(count:)`` if bytes follow the item, or any
    ///   other ``CBORError`` describing why the item is not acceptable.
    public static func decode(
        _ bytes: ArraySlice<UInt8>,
        maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> CBORValue {
        var reader = CBORReader(bytes, maximumDepth: maximumDepth)
        let value = try reader.value()
        try reader.finish()
        return value
    }

    /// Decodes exactly one data item that must span all of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The encoded data item.
    ///   - maximumDepth: The deepest nesting of arrays and maps accepted.
    /// - Returns: The decoded data item.
    /// - Throws: ``CBORError/trailingBytes(count:)`` if bytes follow the item, or any
    ///   other ``CBORError`` describing why the item is not acceptable.
    public static func decode(
        _ bytes: [UInt8],
        maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> CBORValue {
        try decode(bytes[...], maximumDepth: maximumDepth)
    }

    /// Decodes one item from the front and returns it with the remaining bytes (for
    /// streams / authenticator data with extensions after the attested credential data).
    ///
    /// - Parameters:
    ///   - bytes: Bytes starting with an encoded data item.
    ///   - maximumDepth: The deepest nesting of arrays and maps accepted.
    /// - Returns: The decoded item, and the slice of `bytes` after it (sharing the
    ///   indices of `bytes`).
    /// - Throws: A ``CBORError`` describing why the first item is not acceptable.
    public static func decodePrefix(
        _ bytes: ArraySlice<UInt8>,
        maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> (value: CBORValue, rest: ArraySlice<UInt8>) {
        var reader = CBORReader(bytes, maximumDepth: maximumDepth)
        let value = try reader.value()
        return (value, reader.rest)
    }
}

extension CBORReader {
    /// Reads the next item whole as a ``CBORValue`` tree (recursion as deep as its nesting,
    /// which ``maximumDepth`` bounds).
    public mutating func value() throws(CBORError) -> CBORValue {
        switch try next() {
        case .unsigned(let value): return .unsigned(value)
        case .negative(let value): return .negative(value)
        case .bytes(let range): return .bytes(Array(self[range]))
        // Valid UTF-8 (the reader checked it), so decoding is lossless.
        case .text(let range): return .text(String(decoding: self[range], as: UTF8.self))
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .undefined: return .undefined
        case .array(let count):
            var elements: [CBORValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try value()) }
            endContainer()
            return .array(elements)
        case .map(let count):
            var keys = startMapKeys()
            var entries: [CBORMap.Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let start = position
                let key = try value()
                if checksMapKeys { try addKey(from: start, to: &keys) }
                entries.append(CBORMap.Entry(key: key, value: try value()))
            }
            endContainer()
            return .map(CBORMap(uncheckedUniqueEntries: entries))
        }
    }
}
