/// Hexadecimal text for bytes, the one helper every module uses for traces, messages and
/// file formats.
public enum Hex {
    private static let upper = Array("0123456789ABCDEF".utf8)
    private static let lower = Array("0123456789abcdef".utf8)

    /// The bytes as hex digits, upper-case unless asked otherwise, with `separator` between bytes.
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = true, separator: String = "") -> String {
        let digits = uppercase ? upper : lower
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * (2 + separator.utf8.count))
        var first = true
        for byte in bytes {
            if !first { out += separator.utf8 }
            first = false
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One byte as two upper-case digits: `0A`.
    public static func byte(_ byte: UInt8) -> String { string(CollectionOfOne(byte)) }

    /// A 16-bit value as four upper-case digits: `6A82`.
    public static func word(_ word: UInt16) -> String { string([UInt8(word >> 8), UInt8(word & 0xFF)]) }

    /// Bytes from hex digits (either case); `ignoringWhitespace` lets spaces and tabs stand
    /// between digits. Nil for an odd number of digits or any other character.
    public static func bytes(_ text: some StringProtocol, ignoringWhitespace: Bool = false) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for character in text.utf8 {
            if ignoringWhitespace && (character == 0x20 || character == 0x09) { continue }
            guard let value = nibble(character) else { return nil }
            if let pending = high {
                bytes.append(pending << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? bytes : nil
    }

    /// A byte written `0x1F`, `0X1F` or in decimal (`31`); nil for anything else.
    public static func number(_ text: String) -> UInt8? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt8(text.dropFirst(2), radix: 16) }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt8(text)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case 0x30...0x39: character - 0x30
        case 0x41...0x46: character - 0x41 + 10
        case 0x61...0x66: character - 0x61 + 10
        default: nil
        }
    }
}

extension Array where Element == UInt8 {
    /// Bytes from a hex string (even length, no separators, either case); nil when it is not hex.
    public init?(hex: String) {
        guard let bytes = Hex.bytes(hex) else { return nil }
        self = bytes
    }

    /// Lower-case hex without separators.
    public var hexString: String { Hex.string(self, uppercase: false) }
}
