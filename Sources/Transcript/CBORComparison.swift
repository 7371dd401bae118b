import CBOR
import COSE
import CTAP2

/// How one field of a request or response is compared.
enum FieldRule: Equatable {
    /// Same value (the walk still goes down to name the first differing inner field).
    case equal
    /// Same CBOR shape: same types, same map keys, same array lengths; any values.
    case shape
    /// Same type and, for strings and arrays, the same length; any value (host-random fields).
    case sameTypeAndLength
    /// Any valid COSE EC2 P-256 key (a host's ephemeral key-agreement key).
    case coseKey
    /// A credential ID: the expected one after the replay's substitutions.
    case credentialID
    /// Authenticator data: taken apart (``AuthenticatorDataView``) and its fields compared by
    /// their own rules; compared as bytes when either side is not authenticator data.
    case authenticatorData
}

/// Walks two CBOR values side by side and returns the first field that differs under the
/// rules a caller gives per path. Map keys are visited in the expected map's order (the wire
/// order, canonical for CTAP), then keys only the actual map has.
struct CBORComparison {
    /// The rule for a path.
    var rule: (FieldPath) -> FieldRule
    /// The credential ID expected in place of a recorded one.
    var credentialID: ([UInt8]) -> [UInt8] = { $0 }

    func firstDifference(_ expected: CBORValue, _ actual: CBORValue, at path: FieldPath) -> FieldDifference? {
        switch rule(path) {
        case .equal:
            guard expected != actual else { return nil }
            return descend(expected, actual, at: path)
                ?? difference(path, expected, actual, reason: "different value")
        case .shape:
            return descend(expected, actual, at: path)
        case .sameTypeAndLength:
            if let typeDifference = typeDifference(expected, actual, at: path) { return typeDifference }
            if let a = length(of: expected), let b = length(of: actual), a != b {
                return difference(path, expected, actual, reason: "different length (\(a) vs \(b))")
            }
            return nil
        case .coseKey:
            guard (try? COSEPublicKey(cbor: actual)) != nil else {
                return difference(path, expected, actual, reason: "not a valid COSE P-256 key")
            }
            return nil
        case .credentialID:
            guard let recorded = expected.bytesValue else { return expected == actual ? nil : difference(path, expected, actual, reason: "different value") }
            let wanted = CBORValue.bytes(credentialID(recorded))
            return wanted == actual ? nil : difference(path, wanted, actual, reason: "different credential ID")
        case .authenticatorData:
            guard let a = expected.bytesValue.flatMap(AuthenticatorDataView.init),
                  let b = actual.bytesValue.flatMap(AuthenticatorDataView.init) else {
                return expected == actual ? nil : difference(path, expected, actual, reason: "different value")
            }
            return descend(a.asCBOR, b.asCBOR, at: path)
        }
    }

    /// Compares containers member by member (each by its own rule); leaves by type only.
    private func descend(_ expected: CBORValue, _ actual: CBORValue, at path: FieldPath) -> FieldDifference? {
        if let typeDifference = typeDifference(expected, actual, at: path) { return typeDifference }
        switch (expected, actual) {
        case (.map(let a), .map(let b)):
            for (key, value) in a {
                let child = path.appending(.key(key, name: name(of: key, at: path)))
                guard let other = b[key] else { return FieldDifference(path: child, expected: render(value), actual: "nothing", reason: "missing") }
                if let found = firstDifference(value, other, at: child) { return found }
            }
            for (key, value) in b where a[key] == nil {
                let child = path.appending(.key(key, name: name(of: key, at: path)))
                return FieldDifference(path: child, expected: "nothing", actual: render(value), reason: "unexpected field")
            }
            return nil
        case (.array(let a), .array(let b)):
            guard a.count == b.count else {
                return difference(path, expected, actual, reason: "different array length (\(a.count) vs \(b.count))")
            }
            for (index, (x, y)) in zip(a, b).enumerated() {
                if let found = firstDifference(x, y, at: path.appending(.index(index))) { return found }
            }
            return nil
        default:
            return nil
        }
    }

    private func typeDifference(_ expected: CBORValue, _ actual: CBORValue, at path: FieldPath) -> FieldDifference? {
        let a = Self.typeName(expected)
        let b = Self.typeName(actual)
        return a == b ? nil : difference(path, expected, actual, reason: "different type (\(a) vs \(b))")
    }

    private func length(of value: CBORValue) -> Int? {
        switch value {
        case .bytes(let bytes): bytes.count
        case .text(let text): text.utf8.count
        case .array(let items): items.count
        case .map(let map): map.count
        default: nil
        }
    }

    /// Names only top-level integer keys (the CTAP parameters); the root says which table.
    private func name(of key: CBORValue, at path: FieldPath) -> String? {
        guard path.segments.isEmpty, let index = key.intValue else { return nil }
        return fieldNames?(index)
    }

    /// The names of the top-level keys, set by the caller for the command at hand.
    var fieldNames: ((Int) -> String?)?

    private func difference(_ path: FieldPath, _ expected: CBORValue, _ actual: CBORValue, reason: String) -> FieldDifference {
        FieldDifference(path: path, expected: render(expected), actual: render(actual), reason: reason)
    }

    func render(_ value: CBORValue) -> String {
        CBORRendering.render(value)
    }

    static func typeName(_ value: CBORValue) -> String {
        switch value {
        case .unsigned: "unsigned integer"
        case .negative: "negative integer"
        case .bytes: "byte string"
        case .text: "text string"
        case .array: "array"
        case .map: "map"
        case .bool: "boolean"
        case .null: "null"
        case .undefined: "undefined"
        }
    }
}
