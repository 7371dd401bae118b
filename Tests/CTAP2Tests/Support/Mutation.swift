import CBOR
import CTAP2
import Testing
import FIDOWire

/// One change to a valid request and the exact status the card must answer it with.
struct Mutation: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: CTAPStatus
    let apply: @Sendable (inout CBORMap) -> Void

    init(_ name: String, _ expected: CTAPStatus, _ apply: @escaping @Sendable (inout CBORMap) -> Void) {
        self.name = name
        self.expected = expected
        self.apply = apply
    }

    var testDescription: String { "\(name) → \(expected.name)" }
}

extension CBORMap {
    /// Rewrites the nested map at integer key `key`.
    mutating func editMap(_ key: Int, _ edit: (inout CBORMap) -> Void) {
        guard var nested = self[int: key]?.mapValue else { return }
        edit(&nested)
        self[int: key] = .map(nested)
    }
}
