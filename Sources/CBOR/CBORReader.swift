//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// The pull reader over CTAP2 CBOR: the lexer every reading is built on, ``CBORDecoder``'s
/// tree as much as a message that reads its members straight into its own fields.
///
/// Each ``next()`` reads one token and checks it as CTAP2 asks, so these checks exist here
/// only: heads in their shortest form, no indefinite lengths, tags, floats or simple values
/// other than `false`, `true`, `null` and `undefined`, every declared length and count within
/// the bytes left (before anything is allocated), text strings well-formed UTF-8, arrays and
/// maps nested at most `maximumDepth` deep. ``mapKey(_:)`` and ``CBORMapKeys`` catch a map key
/// sent twice. A thrown ``CBORError`` ends the reading: the input is not well-formed.
///
/// A reader is a value over a slice (no pointers); reading a whole item it does not need
/// (``skipItem()``) checks it exactly as reading it would.
public struct CBORReader: Sendable {
    // The input and the position, and the accessors that only read them, are open to inlining
    // (and only those): a message reader in another module calls them for every member, and a
    // call that is not inlined copies the reader (a reference count on the input) each time.
    @usableFromInline let input: ArraySlice<UInt8>
    /// The index in the input of the next unread byte.
    public private(set) var position: Int
    /// The deepest nesting of arrays and maps accepted (a top-level array or map is at depth 1).
    public let maximumDepth: Int
    /// How many arrays and maps are open around the next token.
    private var depth = 0
    /// Whether maps, read or skipped, are checked for a key sent twice (off only to read again
    /// bytes already read and checked, see ``CBORMapKeys``).
    let checksMapKeys: Bool

    /// A reader at the start of `input`.
    public init(_ input: ArraySlice<UInt8>, maximumDepth: Int = CBORDecoder.defaultMaximumDepth) {
        self.init(input, maximumDepth: maximumDepth, checksMapKeys: true)
    }

    init(_ input: ArraySlice<UInt8>, maximumDepth: Int, checksMapKeys: Bool) {
        self.input = input
        position = input.startIndex
        self.maximumDepth = maximumDepth
        self.checksMapKeys = checksMapKeys
    }

    /// Whether every byte was read.
    @inlinable public var isAtEnd: Bool { position == input.endIndex }

    /// The number of unread bytes.
    public var remainingCount: Int { input.endIndex &- position }

    /// The bytes read since `start` (a ``position`` taken earlier): an item exactly as it was sent.
    @inlinable public func bytes(from start: Int) -> ArraySlice<UInt8> { input[start..<position] }

    /// The input's bytes at `range`: a string token's content.
    @inlinable public subscript(range: Range<Int>) -> ArraySlice<UInt8> { input[range] }

    /// The unread bytes, with the input's indices.
    public var rest: ArraySlice<UInt8> { input[position...] }

    /// Ends a reading that must span the input: ``CBORError/trailingBytes(count:)`` if bytes are left.
    public func finish() throws(CBORError) {
        guard isAtEnd else { throw .trailingBytes(count: remainingCount) }
    }

    /// Reads the next token: a scalar, a string with its content, or an array's or map's head
    /// (which opens it: read its elements, then call ``endContainer()``).
    public mutating func next() throws(CBORError) -> CBORToken {
        guard position < input.endIndex else { throw .truncated }
        let initial = input[position]
        position &+= 1
        let majorType = initial >> 5
        let info = initial & 0x1F
        let argument: UInt64
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24: argument = try bigEndian(1)
        case 25: argument = try bigEndian(2)
        case 26: argument = try bigEndian(4)
        case 27: argument = try bigEndian(8)
        case 28, 29, 30: throw .reservedAdditionalInfo
        default: throw .indefiniteLength
        }
        switch majorType {
        case 6: throw .unsupportedMajorType(6)
        case 7: return try simpleValue(info: info, argument: argument)
        default: break
        }
        guard Self.isShortest(info: info, argument: argument) else { throw .nonCanonicalEncoding }
        switch majorType {
        case 0:
            return .unsigned(argument)
        case 1:
            return .negative(argument)
        case 2:
            return .bytes(try content(length: argument))
        case 3:
            let utf8 = try content(length: argument)
            guard UTF8Validation.isValid(input, in: utf8) else { throw .invalidUTF8 }
            return .text(utf8)
        case 4:
            try open()
            return .array(count: try checkedLength(argument))
        default:
            try open()
            return .map(count: try checkedLength(argument))
        }
    }

    /// Closes the array or map whose head ``next()`` read last among those still open, once its
    /// elements are read.
    public mutating func endContainer() {
        precondition(depth > 0, "CBORReader.endContainer() without an open array or map")
        depth &-= 1
    }

    /// Reads the rest of the item `token` began: an array's or a map's elements, checked as
    /// reading them would (a scalar or string token is its whole item already).
    public mutating func skip(restOf token: CBORToken) throws(CBORError) {
        switch token {
        case .array(let count):
            for _ in 0..<count { try skip(restOf: try next()) }
            endContainer()
        case .map(let count):
            var keys = startMapKeys()
            for _ in 0..<count {
                if checksMapKeys { _ = try mapKey(&keys) } else { try skip(restOf: try next()) }
                try skip(restOf: try next())
            }
            endContainer()
        default:
            break
        }
    }

    /// Reads the next item whole, checked as reading it would, and returns its bytes as sent.
    public mutating func skipItem() throws(CBORError) -> ArraySlice<UInt8> {
        let start = position
        try skip(restOf: try next())
        return bytes(from: start)
    }

    /// The keys of the map whose head was just read, none yet: pass them to ``mapKey(_:)`` for
    /// each key.
    public func startMapKeys() -> CBORMapKeys { CBORMapKeys(firstKey: position) }

    /// Reads the next map key whole and adds it to `keys`, the keys of its map read so far
    /// (``CBORError/duplicateMapKey`` if it is among them). A key that is an array or a map is
    /// returned as its head, its elements read.
    public mutating func mapKey(_ keys: inout CBORMapKeys) throws(CBORError) -> CBORToken {
        let start = position
        let token = try mapKey()
        try addKey(from: start, to: &keys)
        return token
    }

    /// Reads the next map key whole, without keeping it (a reader that catches a repeated key
    /// its own way): an array or map key is returned as its head, its elements read.
    public mutating func mapKey() throws(CBORError) -> CBORToken {
        let token = try next()
        switch token {
        case .array, .map: try skip(restOf: token)
        default: break
        }
        return token
    }

    /// Adds the key read since `start` (a ``position`` taken before ``mapKey()``) to `keys`, the
    /// keys of its map read so far: ``CBORError/duplicateMapKey`` if it is among them.
    public mutating func addKey(from start: Int, to keys: inout CBORMapKeys) throws(CBORError) {
        try keys.insert(start..<position, of: input)
    }

    /// Reads the next bytes if they are exactly `encoded` — a string's whole encoding, which the
    /// caller knows well-formed (a name it writes itself) — and tells whether they were.
    public mutating func skip(encoded: [UInt8]) -> Bool {
        guard remainingCount >= encoded.count else { return false }
        for offset in 0..<encoded.count where input[position &+ offset] != encoded[offset] { return false }
        position &+= encoded.count
        return true
    }

    // MARK: - Heads

    /// Reads a `count`-byte big-endian argument.
    @inline(__always)
    private mutating func bigEndian(_ count: Int) throws(CBORError) -> UInt64 {
        guard remainingCount >= count else { throw .truncated }
        var result: UInt64 = 0
        for offset in 0..<count { result = result << 8 | UInt64(input[position &+ offset]) }
        position &+= count
        return result
    }

    /// A declared string length or container count as an `Int`, once the rest of the input can
    /// hold it (a string needs one byte per unit; an array or map element at least one byte).
    @inline(__always)
    private func checkedLength(_ declared: UInt64) throws(CBORError) -> Int {
        let available = remainingCount
        guard declared <= UInt64(available) else { throw .lengthExceedsInput(declared: declared, available: available) }
        return Int(declared)
    }

    /// Where a string's `length` bytes are.
    @inline(__always)
    private mutating func content(length declared: UInt64) throws(CBORError) -> Range<Int> {
        let length = try checkedLength(declared)
        let start = position
        position &+= length
        return start..<position
    }

    /// Opens an array or map one level deeper, within ``maximumDepth``.
    @inline(__always)
    private mutating func open() throws(CBORError) {
        guard depth < maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
        depth &+= 1
    }

    /// A major type 7 item.
    private func simpleValue(info: UInt8, argument: UInt64) throws(CBORError) -> CBORToken {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20:
            throw .unsupportedSimpleValue(info)
        case 24:
            // Simple values below 24 have a one-byte form; 24...31 are reserved and the others
            // unassigned in CTAP2.
            guard argument >= 24 else { throw .nonCanonicalEncoding }
            throw .unsupportedSimpleValue(UInt8(truncatingIfNeeded: argument))
        default:
            // 25, 26, 27: half-, single- and double-precision floats.
            throw .unsupportedSimpleValue(info)
        }
    }

    /// Whether `argument` came in the shortest head that holds it.
    @inline(__always)
    private static func isShortest(info: UInt8, argument: UInt64) -> Bool {
        switch info {
        case 24: argument >= 24
        case 25: argument > 0xFF
        case 26: argument > 0xFFFF
        case 27: argument > 0xFFFF_FFFF
        default: true
        }
    }
}
