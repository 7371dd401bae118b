//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// A single CBOR data item, restricted to the subset of RFC 8949 that CTAP2 uses.
///
/// CTAP2 forbids tags, floating-point numbers and indefinite-length items, so this
/// type only models integers, byte and text strings, arrays, maps and the four
/// simple values `false`, `true`, `null` and `undefined`.
///
/// Equality and hashing follow CBOR semantics rather than Swift's: two ``text(_:)``
/// values are equal only when their UTF-8 bytes are identical (Swift's `String`
/// comparison would also equate canonically-equivalent Unicode sequences, which
/// encode to different CBOR), and two ``map(_:)`` values are equal when they hold
/// the same key/value pairs regardless of insertion order (they encode to the same
/// canonical bytes).
///
/// - Note: The enum is not declared `indirect`: its recursive payloads already live
///   in heap-allocated `Array` storage, so boxing every scalar would only add an
///   allocation per value.
public enum CBORValue: Sendable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1). The represented value is `-1 - n`.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array of data items (major type 4).
    case array([CBORValue])
    /// A map of key/value pairs (major type 5).
    case map(CBORMap)
    /// The simple values `false` (20) and `true` (21) (major type 7).
    case bool(Bool)
    /// The simple value `null` (22) (major type 7).
    case null
    /// The simple value `undefined` (23) (major type 7).
    case undefined
}

// MARK: - Convenience constructors and accessors

extension CBORValue {
    /// Makes an integer data item, choosing ``unsigned(_:)`` for non-negative values
    /// and ``negative(_:)`` for negative ones.
    ///
    /// - Parameter v: The integer to represent.
    /// - Returns: `.unsigned(UInt64(v))` when `v >= 0`, otherwise `.negative(UInt64(-1 - v))`.
    @inlinable
    public static func int(_ v: Int) -> CBORValue {
        if v >= 0 {
            return .unsigned(UInt64(v))
        } else {
            // -1 - v cannot overflow: for v == Int.min it is Int.max.
            return .negative(UInt64(-1 - v))
        }
    }

    /// The integer value of an ``unsigned(_:)`` or ``negative(_:)`` item, or `nil` when
    /// this is not an integer or the value does not fit in `Int`.
    @inlinable
    public var intValue: Int? {
        switch self {
        case .unsigned(let u):
            return u <= UInt64(Int.max) ? Int(u) : nil
        case .negative(let n):
            return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default:
            return nil
        }
    }

    /// The payload of an ``unsigned(_:)`` item, or `nil` for any other item.
    @inlinable public var uint64Value: UInt64? { if case .unsigned(let u) = self { u } else { nil } }
    /// The payload of a ``bytes(_:)`` item, or `nil` for any other item.
    @inlinable public var bytesValue: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    /// The payload of a ``text(_:)`` item, or `nil` for any other item.
    @inlinable public var textValue: String? { if case .text(let s) = self { s } else { nil } }
    /// The elements of an ``array(_:)`` item, or `nil` for any other item.
    @inlinable public var arrayValue: [CBORValue]? { if case .array(let a) = self { a } else { nil } }
    /// The payload of a ``map(_:)`` item, or `nil` for any other item.
    @inlinable public var mapValue: CBORMap? { if case .map(let m) = self { m } else { nil } }
    /// The payload of a ``bool(_:)`` item, or `nil` for any other item.
    @inlinable public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// Whether this item is ``null``.
    @inlinable public var isNull: Bool { if case .null = self { true } else { false } }

    /// The CBOR major type (0...7) this item is encoded with.
    @inlinable
    public var majorType: UInt8 {
        switch self {
        case .unsigned: return 0
        case .negative: return 1
        case .bytes: return 2
        case .text: return 3
        case .array: return 4
        case .map: return 5
        case .bool, .null, .undefined: return 7
        }
    }

    /// The CTAP2 canonical encoding of this item.
    ///
    /// Equivalent to `CBOREncoder.encode(self)`.
    public func encoded() -> [UInt8] {
        CBOREncoder.encode(self)
    }
}

// MARK: - Hashable

extension CBORValue: Hashable {
    /// Compares two data items with CBOR semantics: text strings compare by their
    /// UTF-8 bytes and maps compare as unordered sets of key/value pairs.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        default: false
        }
    }

    /// Hashes the data item consistently with ``==(_:_:)``: its major type, then its payload
    /// (a text string by its UTF-8 bytes; a simple value by its number).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(majorType)
        switch self {
        case .unsigned(let n), .negative(let n): hasher.combine(n)
        case .bytes(let b): hasher.combine(b)
        case .text(let s):
            hasher.combine(s.utf8.count)
            for byte in s.utf8 { hasher.combine(byte) }
        case .array(let a): hasher.combine(a)
        case .map(let m): hasher.combine(m)
        case .bool(let b): hasher.combine(b ? 21 as UInt8 : 20)
        case .null: hasher.combine(22 as UInt8)
        case .undefined: hasher.combine(23 as UInt8)
        }
    }
}

// MARK: - CustomStringConvertible

extension CBORValue: CustomStringConvertible {
    /// The RFC 8949 diagnostic notation of this item (see ``diagnosticNotation``).
    public var description: String {
        diagnosticNotation
    }
}
