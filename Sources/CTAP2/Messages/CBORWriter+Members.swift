import CBOR
import FIDOWire

/// Writing a message's members: each function writes `key` and the value when there is one
/// (a nil member is absent), counting it in `map`. The caller writes members in CTAP2 canonical
/// key order (CTAP 2.1 §8): ascending integer keys; text keys shorter first, then bytewise.
extension CBORWriter {
    /// Member `key` with `value` written by `write`, when there is a value.
    mutating func member<Value>(_ key: some MemberKey, _ value: Value?, of map: inout OpenMap,
                                _ write: (inout CBORWriter, Value) -> Void) {
        guard let value else { return }
        key.write(to: &self, of: &map)
        write(&self, value)
    }

    mutating func member(_ key: some MemberKey, bytes: [UInt8]?, of map: inout OpenMap) {
        member(key, bytes, of: &map) { $0.byteString($1) }
    }

    mutating func member(_ key: some MemberKey, text: String?, of map: inout OpenMap) {
        member(key, text, of: &map) { $0.text($1) }
    }

    mutating func member(_ key: some MemberKey, int: Int?, of map: inout OpenMap) {
        member(key, int, of: &map) { $0.int($1) }
    }

    mutating func member(_ key: some MemberKey, unsigned: UInt64?, of map: inout OpenMap) {
        member(key, unsigned, of: &map) { $0.unsigned($1) }
    }

    mutating func member(_ key: some MemberKey, bool: Bool?, of map: inout OpenMap) {
        member(key, bool, of: &map) { $0.bool($1) }
    }

    /// A tree (a COSE key, an attestation statement), canonically.
    mutating func member(_ key: some MemberKey, value: CBORValue?, of map: inout OpenMap) {
        member(key, value, of: &map) { $0.value($1) }
    }

    /// An item as it was received (a map read as sent).
    mutating func member(_ key: some MemberKey, encoded: [UInt8]?, of map: inout OpenMap) {
        member(key, encoded, of: &map) { $0.appendEncoded($1) }
    }

    mutating func member(_ key: some MemberKey, _ message: (some CTAPSerializable)?, of map: inout OpenMap) {
        member(key, message, of: &map) { $1.write(to: &$0) }
    }

    /// An array of items each written by `element`; an empty array is written as absent when
    /// `omitEmpty` (a list whose absence reads as empty).
    mutating func member<Element>(_ key: some MemberKey, array: [Element]?, omitEmpty: Bool = false, of map: inout OpenMap,
                                  _ element: (inout CBORWriter, Element) -> Void) {
        member(key, omitEmpty && array?.isEmpty == true ? nil : array, of: &map) { writer, array in
            writer.arrayHead(count: array.count)
            for item in array { element(&writer, item) }
        }
    }

    /// The `options` map, names in canonical order; written as absent when empty.
    mutating func member(_ key: some MemberKey, options: [String: Bool], of map: inout OpenMap) {
        member(key, options.isEmpty ? nil : options, of: &map) { writer, options in
            writer.value(.map(CBORMap(options.map { (.text($0.key), .bool($0.value)) })))
        }
    }
}
