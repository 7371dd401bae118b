//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Literals write CBOR items as CTAP examples show them: `[1: "id", 2: true, 3: [4, 5]]`.
extension CBORValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral {
    /// An integer item, as ``int(_:)`` makes.
    @inlinable public init(integerLiteral value: Int) { self = .int(value) }
    /// A ``text(_:)`` item.
    @inlinable public init(stringLiteral value: String) { self = .text(value) }
    /// A ``bool(_:)`` item.
    @inlinable public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An ``array(_:)`` item.
    @inlinable public init(arrayLiteral elements: CBORValue...) { self = .array(elements) }
}

extension CBORValue: ExpressibleByDictionaryLiteral {
    /// Creates a ``map(_:)`` item from a dictionary literal, keeping the literal's order.
    ///
    /// Repeated keys keep their first position and their last value (see ``CBORMap/init(_:)``).
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self = .map(CBORMap(checking: elements.map { CBORMap.Entry(key: $0.0, value: $0.1) }))
    }
}
