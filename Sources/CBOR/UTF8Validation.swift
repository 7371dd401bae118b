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
    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            let remaining = end &- index
            switch lead {
            case 0xC2...0xDF:
                guard remaining >= 2, isContinuation(bytes[index &+ 1]) else { return false }
                index &+= 2
            case 0xE0...0xEF:
                guard remaining >= 3 else { return false }
                let second = bytes[index &+ 1]
                let secondRange: ClosedRange<UInt8>
                switch lead {
                case 0xE0: secondRange = 0xA0...0xBF  // no overlong forms
                case 0xED: secondRange = 0x80...0x9F  // no surrogates
                default: secondRange = 0x80...0xBF
                }
                guard secondRange.contains(second), isContinuation(bytes[index &+ 2]) else { return false }
                index &+= 3
            case 0xF0...0xF4:
                guard remaining >= 4 else { return false }
                let second = bytes[index &+ 1]
                let secondRange: ClosedRange<UInt8>
                switch lead {
                case 0xF0: secondRange = 0x90...0xBF  // no overlong forms
                case 0xF4: secondRange = 0x80...0x8F  // nothing above U+10FFFF
                default: secondRange = 0x80...0xBF
                }
                guard secondRange.contains(second),
                    isContinuation(bytes[index &+ 2]),
                    isContinuation(bytes[index &+ 3])
                else { return false }
                index &+= 4
            default:
                // 0x80...0xC1: continuation bytes or overlong two-byte leads;
                // 0xF5...0xFF: never valid.
                return false
            }
        }
        return true
    }

    @inline(__always)
    private static func isContinuation(_ byte: UInt8) -> Bool {
        byte & 0xC0 == 0x80
    }
}
