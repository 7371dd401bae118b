//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// The writer every CTAP2 CBOR is written with: items one by one, in the shortest heads, into
/// one growing buffer. ``CBOREncoder`` writes a ``CBORValue`` tree with it; a message writes
/// itself member by member, without a tree.
///
/// A map a message writes is opened (``openMap()``), given its members in CTAP2 canonical key
/// order (CTAP 2.1 §8) — each key through ``key(_:of:)-(Int,_)`` or ``key(_:of:)-(String,_)``,
/// which counts it — and closed (``close(_:)``), which writes the count into the map's head.
/// Whoever writes the members keeps the order; a writer in canonical order produces the bytes
/// ``CBOREncoder/encode(_:)`` makes of the same members as a tree.
public struct CBORWriter: Sendable {
    /// What was written.
    public private(set) var bytes: [UInt8]

    /// An empty writer whose buffer holds `capacity` bytes before it grows.
    public init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A map being written: where its head is, and how many members it has so far.
    public struct OpenMap: Sendable {
        fileprivate let head: Int
        /// The members written so far.
        public fileprivate(set) var count = 0
    }

    /// Appends bytes as they are: an item already encoded (a member as it was received).
    public mutating func appendEncoded(_ encoded: [UInt8]) { bytes.append(contentsOf: encoded) }

    /// Appends bytes as they are: an item already encoded, as a slice of what was received.
    public mutating func appendEncoded(_ encoded: ArraySlice<UInt8>) { bytes.append(contentsOf: encoded) }

    /// Appends one byte as it is: what precedes CBOR in a message (a CTAP status byte).
    public mutating func appendEncoded(byte: UInt8) { bytes.append(byte) }

    /// Appends an unsigned integer.
    public mutating func unsigned(_ value: UInt64) { Self.appendHead(majorType: 0, argument: value, to: &bytes) }

    /// Appends an integer, unsigned or negative.
    public mutating func int(_ value: Int) {
        if value >= 0 {
            Self.appendHead(majorType: 0, argument: UInt64(value), to: &bytes)
        } else {
            Self.appendHead(majorType: 1, argument: UInt64(-1 - value), to: &bytes)
        }
    }

    /// Appends a byte string.
    public mutating func byteString(_ content: [UInt8]) {
        Self.appendHead(majorType: 2, argument: UInt64(content.count), to: &bytes)
        bytes.append(contentsOf: content)
    }

    /// Appends a byte string, from a slice.
    public mutating func byteString(_ content: ArraySlice<UInt8>) {
        Self.appendHead(majorType: 2, argument: UInt64(content.count), to: &bytes)
        bytes.append(contentsOf: content)
    }

    /// Appends a text string (its UTF-8).
    public mutating func text(_ text: String) {
        let utf8 = text.utf8
        Self.appendHead(majorType: 3, argument: UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    /// Appends `false` or `true`.
    public mutating func bool(_ flag: Bool) { bytes.append(flag ? 0xF5 : 0xF4) }

    /// Appends the head of an array of `count` items (the items follow).
    public mutating func arrayHead(count: Int) { Self.appendHead(majorType: 4, argument: UInt64(count), to: &bytes) }

    /// Appends a tree in canonical form, as ``CBOREncoder/encode(_:)`` encodes it.
    public mutating func value(_ value: CBORValue) { Self.append(value, to: &bytes) }

    /// Opens a map whose members follow; ``close(_:)`` writes their count into its head.
    public mutating func openMap() -> OpenMap {
        bytes.append(0xA0)
        return OpenMap(head: bytes.count - 1)
    }

    /// Writes the integer key of the next member of `map` (CTAP's parameter maps).
    public mutating func key(_ key: Int, of map: inout OpenMap) {
        map.count += 1
        int(key)
    }

    /// Writes the text key of the next member of `map` (WebAuthn's structures, extensions).
    public mutating func key(_ key: String, of map: inout OpenMap) {
        map.count += 1
        text(key)
    }

    /// Writes a key already encoded (a name the writer writes often) as the next member of `map`.
    public mutating func key(encoded key: [UInt8], of map: inout OpenMap) {
        map.count += 1
        bytes.append(contentsOf: key)
    }

    /// Closes `map`: its head says how many members were written.
    public mutating func close(_ map: OpenMap) {
        guard map.count >= 24 else {
            bytes[map.head] = 0xA0 | UInt8(map.count)
            return
        }
        var head: [UInt8] = []
        Self.appendHead(majorType: 5, argument: UInt64(map.count), to: &head)
        bytes.replaceSubrange(map.head...map.head, with: head)
    }

    // MARK: - Heads and trees

    /// Appends the shortest head for `majorType` and `argument`.
    @inline(__always)
    static func appendHead(majorType: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let mt = majorType << 5
        switch argument {
        case 0..<24:
            output.append(mt | UInt8(truncatingIfNeeded: argument))
        case 24...0xFF:
            output.append(mt | 24)
            output.append(UInt8(truncatingIfNeeded: argument))
        case 0x100...0xFFFF:
            output.append(mt | 25)
            output.append(UInt8(truncatingIfNeeded: argument >> 8))
            output.append(UInt8(truncatingIfNeeded: argument))
        case 0x1_0000...0xFFFF_FFFF:
            output.append(mt | 26)
            for shift in stride(from: 24, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        default:
            output.append(mt | 27)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
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
            for element in elements { append(element, to: &output) }
        case .map(let map):
            appendHead(majorType: 5, argument: UInt64(map.count), to: &output)
            let entries = map.storage
            let ordered = CBOREncoder.isCanonicallyOrdered(entries) ? entries
                : entries.sorted { $0.key.canonicallyPrecedes($1.key) }
            for entry in ordered {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
        case .bool(let b):
            output.append(b ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        case .undefined:
            output.append(0xF7)
        }
    }
}
