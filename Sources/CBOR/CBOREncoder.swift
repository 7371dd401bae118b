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
/// single buffer, so encoding performs one allocation for the result (plus one per
/// map whose keys are not already in canonical order).
public enum CBOREncoder {
    /// CTAP2 canonical CBOR (CTAP 2.1 §8 "CTAP2 canonical CBOR encoding form"):
    /// shortest-form integer and length encodings, definite lengths only, map keys
    /// sorted: lower major type first, then shorter encoded key first, then byte-wise
    /// lexical order of the encoded key.
    ///
    /// - Parameter value: The data item to encode.
    /// - Returns: The canonical encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(encodedLength(of: value))
        append(value, to: &output)
        return output
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
        append(value, to: &buffer)
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

    /// Appends the shortest head for `majorType` and `argument`.
    @inline(__always)
    static func appendHead(majorType: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let mt = majorType << 5
        switch argument {
        case 0..<24:
            output.append(mt | UInt8(truncatingIfNeeded: argument))
        case 24...0xff:
            output.append(mt | 24)
            output.append(UInt8(truncatingIfNeeded: argument))
        case 0x100...0xffff:
            output.append(mt | 25)
            output.append(UInt8(truncatingIfNeeded: argument >> 8))
            output.append(UInt8(truncatingIfNeeded: argument))
        case 0x1_0000...0xffff_ffff:
            output.append(mt | 26)
            output.append(UInt8(truncatingIfNeeded: argument >> 24))
            output.append(UInt8(truncatingIfNeeded: argument >> 16))
            output.append(UInt8(truncatingIfNeeded: argument >> 8))
            output.append(UInt8(truncatingIfNeeded: argument))
        default:
            output.append(mt | 27)
            var shift: UInt64 = 56
            while true {
                output.append(UInt8(truncatingIfNeeded: argument >> shift))
                if shift == 0 { break }
                shift -= 8
            }
        }
    }

    /// Appends the canonical encoding of `value` (no capacity management).
    static func append(_ value: CBORValue, to output: inout [UInt8]) {
        switch value {
        case .unsigned(let u):
            appendHead(majorType: 0, argument: u, to: &output)
        case .negative(let n):
            appendHead(majorType: 1, argument: n, to: &output)
        case .bytes(let b):
            appendHead(majorType: 2, argument: UInt64(b.count), to: &output)
            output.append(contentsOf: b)
        case .text(let s):
            let utf8 = s.utf8
            appendHead(majorType: 3, argument: UInt64(utf8.count), to: &output)
            output.append(contentsOf: utf8)
        case .array(let elements):
            appendHead(majorType: 4, argument: UInt64(elements.count), to: &output)
            for element in elements {
                append(element, to: &output)
            }
        case .map(let map):
            appendHead(majorType: 5, argument: UInt64(map.count), to: &output)
            let entries = map.storage
            if isCanonicallyOrdered(entries) {
                for entry in entries {
                    append(entry.key, to: &output)
                    append(entry.value, to: &output)
                }
            } else {
                for entry in entries.sorted(by: { $0.key.canonicallyPrecedes($1.key) }) {
                    append(entry.key, to: &output)
                    append(entry.value, to: &output)
                }
            }
        case .bool(let b):
            output.append(b ? 0xf5 : 0xf4)
        case .null:
            output.append(0xf6)
        case .undefined:
            output.append(0xf7)
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
