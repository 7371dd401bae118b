import Foundation

/// A JSON document as a value, without `Any` (so it crosses concurrency domains): what the SDK
/// exchanges with FIDO2 servers and backends, and what the card's control channel reads and
/// writes, one object per line.
///
/// **Numbers.** JSON has one number type; this enum keeps two cases so that integers survive
/// exactly. A number read from text is an ``integer(_:)`` when it has neither a fraction nor an
/// exponent part and fits `Int`, or when its value is exactly integral and fits `Int` (`1.0`,
/// `1e3`); anything else is a ``number(_:)`` (`1.5`, `1e300`, `9223372036854775808`). The same
/// rule holds for a `Double` built in code: `.number(3.0)` equals `.integer(3)`, hashes like it,
/// answers ``intValue`` 3 and is written `3`. There is no magnitude cut-off below `Int`'s range,
/// so `5000000000000000` and `9007199254740993` are integers, read and written exactly.
///
/// **Text.** ``text`` is compact JSON on one line with sorted keys and unescaped slashes, so
/// answers are stable and diff well. A non-finite Double, which JSON cannot carry, is written
/// `null`.
public enum JSONValue: Sendable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// A whole number that fits `Int`.
    case integer(Int)
    /// Any other number (and, equally, a whole one: see the type's rule).
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Why text is not one JSON value.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The start of the text that failed.
        public let excerpt: String

        public var description: String { "not JSON: \(excerpt)" }
    }

    /// Parses JSON text (nesting deeper than 512 levels is refused).
    public init(parsing data: Data) throws(ParseError) {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ParseError(excerpt: String(decoding: data.prefix(80), as: UTF8.self))
        }
    }

    /// Parses JSON text (nesting deeper than 512 levels is refused).
    public init(parsing text: String) throws(ParseError) {
        try self.init(parsing: Data(text.utf8))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            // Foundation reads an Int exactly from digits, and from a fraction or exponent only
            // when the value is integral and fits: the type's rule.
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value):
            if let whole = Int(exactly: value) {
                try container.encode(whole)
            } else if value.isFinite {
                try container.encode(value)
            } else {
                try container.encodeNil()  // JSON has no NaN or infinity
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Compact JSON on one line, keys sorted, slashes not escaped.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, finite numbers (non-finite ones are written null), bools and containers of
        // them always encode.
        guard let data = try? encoder.encode(self) else { preconditionFailure("a JSONValue did not encode") }
        return String(decoding: data, as: UTF8.self)
    }

    public var description: String { text }
}

extension JSONValue: Hashable {
    /// Numbers compare by value (`.number(3.0) == .integer(3)`); everything else by case and payload.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer, .integer), (.integer, .number), (.number, .integer), (.number, .number):
            lhs.numericKey == rhs.numericKey
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer, .number: hasher.combine(numericKey)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }

    /// A number's identity: the integer when it is one (by the type's rule), else the Double.
    private enum NumericKey: Hashable {
        case integer(Int)
        case double(Double)
    }

    private var numericKey: NumericKey? {
        switch self {
        case .integer(let value): .integer(value)
        case .number(let value): Int(exactly: value).map(NumericKey.integer) ?? .double(value)
        default: nil
        }
    }
}
