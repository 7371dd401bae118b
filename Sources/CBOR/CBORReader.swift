//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// A forward reader for decoders that read one narrow, common shape of a message straight
/// into their own types, without a ``CBORValue`` tree, and leave every other input to
/// ``CBORDecoder``.
///
/// Each read returns nil when the next item is not exactly what was asked for, or is not
/// well-formed CTAP2 CBOR (a non-shortest head, an indefinite length, a length past the end,
/// invalid UTF-8). The reader then stops being useful: its caller gives up and decodes the
/// whole input with ``CBORDecoder``, so every error a client sees is the decoder's. A reader
/// never says anything about an input it gives up on.
public struct CBORReader {
    private let bytes: ArraySlice<UInt8>
    /// The index of the next unread byte.
    private var index: Int

    /// A reader at the start of `bytes`.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// Whether every byte was read.
    public var isAtEnd: Bool { index == bytes.endIndex }

    /// The argument of the next item's head if it has major type `majorType` and the shortest
    /// head for its argument (any length it declares is checked by the caller).
    private mutating func argument(majorType: UInt8) -> UInt64? {
        guard index < bytes.endIndex else { return nil }
        let initial = bytes[index]
        guard initial >> 5 == majorType else { return nil }
        let info = initial & 0x1F
        let width: Int
        switch info {
        case 0..<24:
            index &+= 1
            return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default: return nil
        }
        guard bytes.endIndex &- index > width else { return nil }
        var value: UInt64 = 0
        for offset in 1...width { value = value << 8 | UInt64(bytes[index &+ offset]) }
        let shortest: Bool
        switch width {
        case 1: shortest = value >= 24
        case 2: shortest = value > 0xFF
        case 4: shortest = value > 0xFFFF
        default: shortest = value > 0xFFFF_FFFF
        }
        guard shortest else { return nil }
        index &+= 1 &+ width
        return value
    }

    /// A length that the rest of the input can hold (one byte per unit at least).
    private mutating func length(majorType: UInt8) -> Int? {
        guard let declared = argument(majorType: majorType), declared <= UInt64(bytes.endIndex &- index) else { return nil }
        return Int(declared)
    }

    /// The member count of a map.
    public mutating func mapCount() -> Int? { length(majorType: 5) }

    /// The element count of an array.
    public mutating func arrayCount() -> Int? { length(majorType: 4) }

    /// An unsigned integer.
    public mutating func unsigned() -> UInt64? { argument(majorType: 0) }

    /// A byte string.
    public mutating func byteString() -> [UInt8]? {
        guard let count = length(majorType: 2) else { return nil }
        defer { index &+= count }
        return Array(bytes[index..<index &+ count])
    }

    /// A text string's UTF-8, checked well-formed (for comparing keys without a `String`).
    public mutating func textBytes() -> ArraySlice<UInt8>? {
        guard let count = length(majorType: 3) else { return nil }
        let utf8 = bytes[index..<index &+ count]
        guard UTF8Validation.isValid(utf8) else { return nil }
        index &+= count
        return utf8
    }

    /// A text string.
    public mutating func text() -> String? {
        textBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the next bytes are exactly `encoded` (an item's whole encoding, such as a text key
    /// written canonically); reads them if so.
    public mutating func skip(encoded: [UInt8]) -> Bool {
        guard bytes.endIndex &- index >= encoded.count,
              bytes[index..<index &+ encoded.count].elementsEqual(encoded) else { return false }
        index &+= encoded.count
        return true
    }

    /// `false` or `true`.
    public mutating func bool() -> Bool? {
        guard index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case 0xF4: index &+= 1; return false
        case 0xF5: index &+= 1; return true
        default: return nil
        }
    }
}
