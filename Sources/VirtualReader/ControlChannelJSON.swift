import Foundation

/// A JSON value as the control channel reads and writes it: one request object per line in,
/// one answer object per line out.
///
/// Numbers are `Double` (exact for every integer the protocol uses); a whole number is written
/// without a fraction. Objects are written with sorted keys, so answers are stable.
public enum ControlChannelJSON: Hashable, Sendable, Codable, ExpressibleByDictionaryLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
    ExpressibleByNilLiteral, ExpressibleByFloatLiteral, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ControlChannelJSON])
    case object([String: ControlChannelJSON])

    public init(dictionaryLiteral elements: (String, ControlChannelJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: ControlChannelJSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .number(value) }

    /// A number from an integer.
    public static func int<Integer: BinaryInteger>(_ value: Integer) -> ControlChannelJSON { .number(Double(value)) }

    /// A string, or null for nil.
    public static func optional(_ value: String?) -> ControlChannelJSON { value.map { .string($0) } ?? .null }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ControlChannelJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ControlChannelJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses one line of JSON.
    public init(parsing text: String) throws(ControlChannelError) {
        do {
            self = try JSONDecoder().decode(ControlChannelJSON.self, from: Data(text.utf8))
        } catch {
            throw .badRequest("not JSON: \(text.prefix(80))")
        }
    }

    /// Compact JSON on one line, keys sorted.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers, bools and containers of them cannot fail.
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    public var description: String { jsonText }

    /// The member `key` of an object (nil for a missing member, and for anything but an object).
    public subscript(key: String) -> ControlChannelJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, or nil.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The bool, or nil.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, or nil.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer when it is a whole number, or nil.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// The array, or nil.
    public var arrayValue: [ControlChannelJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object's members, or nil.
    public var objectValue: [String: ControlChannelJSON]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
