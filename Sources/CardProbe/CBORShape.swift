import CBOR
import FIDOWire
import JSONSupport

/// How the probe keeps a CBOR value: its structure and the values that identify behaviour.
///
/// Integers, text, booleans and the shape of arrays and maps are kept as they are; every byte
/// string becomes its type and length (`bytes(32)`), because what a card sends as bytes — keys,
/// signatures, nonces, credential IDs, encrypted tokens, hashes — is random or derived from
/// secrets. The few byte strings that identify behaviour (getInfo's AAGUID) are kept in hex by
/// the answer's own shape (``ResponseShape``). Map keys are written as text: a text key as it is,
/// an integer key as its member name where the command's specification names it, else as digits.
enum CBORShape {
    /// `bytes(N)`.
    static func bytes(_ count: Int) -> String { "bytes(\(count))" }

    /// A byte string kept as it is: `h'3F59…'` (CBOR diagnostic notation).
    static func hex(_ bytes: [UInt8]) -> String { "h'\(Hex.string(bytes))'" }

    /// The value's shape; integer map keys named by `names` where it knows them.
    static func of(_ value: CBORValue, names: (Int) -> String? = { _ in nil }) -> JSONValue {
        switch value {
        case .unsigned(let number): Int(exactly: number).map(JSONValue.integer) ?? .string("\(number)")
        case .negative(let number): number < UInt64(Int.max) ? .integer(-1 - Int(number)) : .string("-1-\(number)")
        case .bytes(let bytes): .string(Self.bytes(bytes.count))
        case .text(let text): .string(text)
        case .array(let items): .array(items.map { of($0) })
        case .map(let map): .object(members(map, names: names) { _, value in of(value) })
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .undefined: .string("undefined")
        }
    }

    /// A map's members by key text, each value rendered by `render(key, value)`.
    static func members(_ map: CBORMap, names: (Int) -> String? = { _ in nil },
                        _ render: (CBORValue, CBORValue) -> JSONValue) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in map.entries { object[keyText(key, names: names)] = render(key, value) }
        return object
    }

    /// A map key as text: the text itself, a named integer's name, or the integer in digits.
    static func keyText(_ key: CBORValue, names: (Int) -> String?) -> String {
        switch key {
        case .text(let text): text
        default:
            if let number = key.intValue { names(number) ?? "\(number)" } else { "\(of(key).text)" }
        }
    }

    /// A DER-encoded signature (a SEQUENCE: ECDSA, whose length varies with its value) as
    /// `signature(DER)`; any other byte string as its type and length.
    static func signature(_ value: CBORValue) -> JSONValue {
        guard let bytes = value.bytesValue else { return of(value) }
        let looksDER = bytes.count >= 8 && bytes[0] == 0x30 && Int(bytes[1]) + 2 == bytes.count && bytes[2] == 0x02
        return .string(looksDER ? "signature(DER)" : Self.bytes(bytes.count))
    }
}
