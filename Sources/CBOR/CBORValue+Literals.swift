//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

extension CBORValue: ExpressibleByIntegerLiteral {
    /// Creates an integer item from a literal, as ``int(_:)`` does.
    @inlinable
    public init(integerLiteral value: Int) {
        self = .int(value)
    }
}

extension CBORValue: ExpressibleByStringLiteral {
    /// Creates a ``text(_:)`` item from a string literal.
    @inlinable
    public init(stringLiteral value: String) {
        self = .text(value)
    }
}

extension CBORValue: ExpressibleByBooleanLiteral {
    /// Creates a ``bool(_:)`` item from `true` or `false`.
    @inlinable
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension CBORValue: ExpressibleByArrayLiteral {
    /// Creates an ``array(_:)`` item from an array literal.
    @inlinable
    public init(arrayLiteral elements: CBORValue...) {
        self = .array(elements)
    }
}

extension CBORValue: ExpressibleByDictionaryLiteral {
    /// Creates a ``map(_:)`` item from a dictionary literal, keeping the literal's order.
    ///
    /// Repeated keys keep their first position and their last value (see ``CBORMap/init(_:)``).
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self = .map(CBORMap(checking: elements.map { CBORMap.Entry(key: $0.0, value: $0.1) }))
    }
}
