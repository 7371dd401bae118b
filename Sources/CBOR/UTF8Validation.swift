//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Strict UTF-8 validation (RFC 3629 §4) over a byte slice.
///
/// Rejects stray continuation bytes, overlong forms, UTF-16 surrogates (U+D800...U+DFFF),
/// code points above U+10FFFF and sequences cut short by the end of the slice.
/// Written out by hand because the standard library's generic validating initializer
/// is several times slower on `ArraySlice` than this specialised loop.
enum UTF8Validation {
    /// Whether `bytes` at `range` are well-formed UTF-8 (read where they lie: a reader's input).
    static func isValid(_ bytes: ArraySlice<UInt8>, in range: Range<Int>) -> Bool {
        var index = range.lowerBound
        let end = range.upperBound
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            // The sequence's length and the range its second byte must lie in; the bytes after
            // the second are plain continuation bytes.
            let length: Int
            let secondRange: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (length, secondRange) = (2, 0x80...0xBF)
            case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)  // no overlong forms
            case 0xED: (length, secondRange) = (3, 0x80...0x9F)  // no surrogates
            case 0xE1...0xEF: (length, secondRange) = (3, 0x80...0xBF)
            case 0xF0: (length, secondRange) = (4, 0x90...0xBF)  // no overlong forms
            case 0xF4: (length, secondRange) = (4, 0x80...0x8F)  // nothing above U+10FFFF
            case 0xF1...0xF3: (length, secondRange) = (4, 0x80...0xBF)
            default:
                // 0x80...0xC1: continuation bytes or overlong two-byte leads;
                // 0xF5...0xFF: never valid.
                return false
            }
            guard end &- index >= length, secondRange.contains(bytes[index &+ 1]) else { return false }
            var offset = 2
            while offset < length {
                guard isContinuation(bytes[index &+ offset]) else { return false }
                offset &+= 1
            }
            index &+= length
        }
        return true
    }

    @inline(__always)
    private static func isContinuation(_ byte: UInt8) -> Bool {
        byte & 0xC0 == 0x80
    }
}
