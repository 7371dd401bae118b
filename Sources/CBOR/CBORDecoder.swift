//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Decodes the CTAP2 subset of CBOR into ``CBORValue`` trees.
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
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        let value = try parser.parseItem(depth: 0)
        let remaining = parser.remainingCount
        guard remaining == 0 else {
            throw .trailingBytes(count: remaining)
        }
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
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        let value = try parser.parseItem(depth: 0)
        return (value, bytes[parser.index...])
    }
}

// MARK: - Parser

extension CBORDecoder {
    /// A recursive-descent parser over a byte slice.
    ///
    /// Recursion depth equals the nesting depth of arrays and maps, which is bounded
    /// by `maximumDepth`.
    struct Parser {
        /// Maps with more entries than this detect duplicate keys with a `Set`
        /// instead of a linear scan.
        static let linearDuplicateScanLimit = 16

        let bytes: ArraySlice<UInt8>
        let maximumDepth: Int
        /// The index of the next unread byte.
        private(set) var index: Int

        init(bytes: ArraySlice<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            self.index = bytes.startIndex
        }

        /// The number of unread bytes.
        var remainingCount: Int {
            bytes.endIndex &- index
        }

        @inline(__always)
        private mutating func readByte() throws(CBORError) -> UInt8 {
            guard index < bytes.endIndex else { throw .truncated }
            let byte = bytes[index]
            index &+= 1
            return byte
        }

        /// Reads a `count`-byte big-endian unsigned integer.
        @inline(__always)
        private mutating func readBigEndian(_ count: Int) throws(CBORError) -> UInt64 {
            guard remainingCount >= count else { throw .truncated }
            var result: UInt64 = 0
            for offset in 0..<count {
                result = (result << 8) | UInt64(bytes[index &+ offset])
            }
            index &+= count
            return result
        }

        /// Converts a declared string length or container count into an `Int`, after
        /// checking that the rest of the input can hold it (a string needs one byte per
        /// unit; an array or map element needs at least one byte).
        @inline(__always)
        private func checkedLength(_ declared: UInt64) throws(CBORError) -> Int {
            let available = remainingCount
            guard declared <= UInt64(available) else {
                throw .lengthExceedsInput(declared: declared, available: available)
            }
            return Int(declared)
        }

        /// Parses one data item at nesting depth `depth` (the depth of its container).
        mutating func parseItem(depth: Int) throws(CBORError) -> CBORValue {
            let initial = try readByte()
            let majorType = initial >> 5
            let additionalInfo = initial & 0x1f

            let argument: UInt64
            switch additionalInfo {
            case 0..<24:
                argument = UInt64(additionalInfo)
            case 24:
                argument = UInt64(try readByte())
            case 25:
                argument = try readBigEndian(2)
            case 26:
                argument = try readBigEndian(4)
            case 27:
                argument = try readBigEndian(8)
            case 28, 29, 30:
                throw .reservedAdditionalInfo
            default:
                throw .indefiniteLength
            }

            switch majorType {
            case 6:
                throw .unsupportedMajorType(6)
            case 7:
                return try simpleValue(additionalInfo: additionalInfo, argument: argument)
            default:
                break
            }

            guard Parser.isShortest(additionalInfo: additionalInfo, argument: argument) else {
                throw .nonCanonicalEncoding
            }

            switch majorType {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2:
                let length = try checkedLength(argument)
                let start = index
                index &+= length
                return .bytes(Array(bytes[start..<index]))
            case 3:
                let length = try checkedLength(argument)
                let start = index
                index &+= length
                let utf8 = bytes[start..<index]
                guard UTF8Validation.isValid(utf8) else {
                    throw .invalidUTF8
                }
                // Valid input, so decoding is lossless (no replacement characters).
                return .text(String(decoding: utf8, as: UTF8.self))
            case 4:
                let innerDepth = depth &+ 1
                guard innerDepth <= maximumDepth else {
                    throw .nestingTooDeep(limit: maximumDepth)
                }
                let count = try checkedLength(argument)
                var elements: [CBORValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count {
                    elements.append(try parseItem(depth: innerDepth))
                }
                return .array(elements)
            default:  // 5
                let innerDepth = depth &+ 1
                guard innerDepth <= maximumDepth else {
                    throw .nestingTooDeep(limit: maximumDepth)
                }
                let count = try checkedLength(argument)
                return .map(try parseMapEntries(count: count, depth: innerDepth))
            }
        }

        /// Parses `count` key/value pairs at depth `depth`, rejecting duplicate keys.
        private mutating func parseMapEntries(count: Int, depth: Int) throws(CBORError) -> CBORMap {
            var entries: [CBORMap.Entry] = []
            entries.reserveCapacity(count)
            if count <= Parser.linearDuplicateScanLimit {
                for _ in 0..<count {
                    let key = try parseItem(depth: depth)
                    for entry in entries where entry.key == key {
                        throw .duplicateMapKey
                    }
                    let value = try parseItem(depth: depth)
                    entries.append(CBORMap.Entry(key: key, value: value))
                }
            } else {
                var seenKeys = Set<CBORValue>(minimumCapacity: count)
                for _ in 0..<count {
                    let key = try parseItem(depth: depth)
                    guard seenKeys.insert(key).inserted else {
                        throw .duplicateMapKey
                    }
                    let value = try parseItem(depth: depth)
                    entries.append(CBORMap.Entry(key: key, value: value))
                }
            }
            return CBORMap(uncheckedUniqueEntries: entries)
        }

        /// Interprets a major type 7 item.
        private func simpleValue(additionalInfo: UInt8, argument: UInt64) throws(CBORError) -> CBORValue {
            switch additionalInfo {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 0..<20:
                throw .unsupportedSimpleValue(additionalInfo)
            case 24:
                // Simple values below 24 have a one-byte form; 24...31 are reserved and
                // others unassigned in CTAP2.
                guard argument >= 24 else { throw .nonCanonicalEncoding }
                throw .unsupportedSimpleValue(UInt8(truncatingIfNeeded: argument))
            default:
                // 25, 26, 27: half-, single- and double-precision floats.
                throw .unsupportedSimpleValue(additionalInfo)
            }
        }

        /// Whether `argument` was encoded with the shortest head that can hold it.
        @inline(__always)
        private static func isShortest(additionalInfo: UInt8, argument: UInt64) -> Bool {
            switch additionalInfo {
            case 24: return argument >= 24
            case 25: return argument > 0xff
            case 26: return argument > 0xffff
            case 27: return argument > 0xffff_ffff
            default: return true
            }
        }
    }
}
