//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Encodes ``CBORValue`` trees in CTAP2 canonical form.
///
/// The output follows CTAP 2.1 §8 "CTAP2 canonical CBOR encoding form":
/// - integers, string lengths and container counts use the shortest head;
/// - only definite lengths are produced;
/// - map keys are sorted by major type, then encoded length, then encoded bytes
///   (see ``CBORValue/canonicallyPrecedes(_:)``).
///
/// The encoder first measures the exact size of the output and then writes into a
/// single buffer with ``CBORWriter``, so encoding performs one allocation for the result
/// (plus one per map whose keys are not already in canonical order).
public enum CBOREncoder {
    /// CTAP2 canonical CBOR (CTAP 2.1 §8 "CTAP2 canonical CBOR encoding form"):
    /// shortest-form integer and length encodings, definite lengths only, map keys
    /// sorted: lower major type first, then shorter encoded key first, then byte-wise
    /// lexical order of the encoded key.
    ///
    /// - Parameter value: The data item to encode.
    /// - Returns: The canonical encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var writer = CBORWriter(reservingCapacity: encodedLength(of: value))
        writer.value(value)
        return writer.bytes
    }

    /// Appends the canonical encoding of `value` to `buffer`.
    ///
    /// Useful to build structures such as authenticator data where CBOR follows
    /// other bytes without an intermediate copy.
    ///
    /// - Parameters:
    ///   - value: The data item to encode.
    ///   - buffer: The buffer to append to.
    public static func encode(_ value: CBORValue, into buffer: inout [UInt8]) {
        let needed = buffer.count + encodedLength(of: value)
        if needed > buffer.capacity {
            // Grow geometrically so that repeated appends stay linear overall.
            buffer.reserveCapacity(Swift.max(needed, buffer.capacity * 2))
        }
        CBORWriter.append(value, to: &buffer)
    }

    /// The number of bytes ``encode(_:)`` produces for `value`, computed without encoding.
    ///
    /// - Parameter value: The data item to measure.
    /// - Returns: The length of the canonical encoding of `value`.
    public static func encodedLength(of value: CBORValue) -> Int {
        switch value {
        case .unsigned(let u), .negative(let u):
            return headLength(u)
        case .bytes(let b):
            return headLength(UInt64(b.count)) + b.count
        case .text(let s):
            let count = s.utf8.count
            return headLength(UInt64(count)) + count
        case .array(let elements):
            var total = headLength(UInt64(elements.count))
            for element in elements {
                total += encodedLength(of: element)
            }
            return total
        case .map(let map):
            var total = headLength(UInt64(map.count))
            for entry in map.storage {
                total += encodedLength(of: entry.key) + encodedLength(of: entry.value)
            }
            return total
        case .bool, .null, .undefined:
            return 1
        }
    }

    // MARK: - Internals

    /// The length of a head carrying `argument`.
    @inline(__always)
    static func headLength(_ argument: UInt64) -> Int {
        switch argument {
        case 0..<24: return 1
        case 24...0xff: return 2
        case 0x100...0xffff: return 3
        case 0x1_0000...0xffff_ffff: return 5
        default: return 9
        }
    }

    /// Whether the keys of `entries` are already in canonical order (the usual case
    /// for maps built by CTAP2 code, which lets the encoder skip sorting).
    @inline(__always)
    static func isCanonicallyOrdered(_ entries: [CBORMap.Entry]) -> Bool {
        var index = 1
        while index < entries.count {
            if !entries[index - 1].key.canonicallyPrecedes(entries[index].key) {
                return false
            }
            index += 1
        }
        return true
    }
}
