import CBOR
import FIDOWire

/// Writing a message's members: each function writes `key` and the value when there is one
/// (a nil member is absent), counting it in `map`. The caller writes members in CTAP2 canonical
/// key order (CTAP 2.1 §8): ascending integer keys; text keys shorter first, then bytewise.
extension CBORWriter {
    mutating func member(_ key: some MemberKey, bytes: [UInt8]?, of map: inout OpenMap) {
        guard let bytes else { return }
        key.write(to: &self, of: &map)
        byteString(bytes)
    }

    mutating func member(_ key: some MemberKey, text: String?, of map: inout OpenMap) {
        guard let text else { return }
        key.write(to: &self, of: &map)
        self.text(text)
    }

    mutating func member(_ key: some MemberKey, int: Int?, of map: inout OpenMap) {
        guard let int else { return }
        key.write(to: &self, of: &map)
        self.int(int)
    }

    mutating func member(_ key: some MemberKey, unsigned: UInt64?, of map: inout OpenMap) {
        guard let unsigned else { return }
        key.write(to: &self, of: &map)
        self.unsigned(unsigned)
    }

    mutating func member(_ key: some MemberKey, bool: Bool?, of map: inout OpenMap) {
        guard let bool else { return }
        key.write(to: &self, of: &map)
        self.bool(bool)
    }

    /// A tree (a COSE key, an attestation statement), canonically.
    mutating func member(_ key: some MemberKey, value: CBORValue?, of map: inout OpenMap) {
        guard let value else { return }
        key.write(to: &self, of: &map)
        self.value(value)
    }

    /// An item as it was received (a map read as sent).
    mutating func member(_ key: some MemberKey, encoded: [UInt8]?, of map: inout OpenMap) {
        guard let encoded else { return }
        key.write(to: &self, of: &map)
        appendEncoded(encoded)
    }

    mutating func member(_ key: some MemberKey, _ message: (some CTAPSerializable)?, of map: inout OpenMap) {
        guard let message else { return }
        key.write(to: &self, of: &map)
        message.write(to: &self)
    }

    /// An array of items each written by `element`; an empty array is written as absent when
    /// `omitEmpty` (a list whose absence reads as empty).
    mutating func member<Element>(_ key: some MemberKey, array: [Element]?, omitEmpty: Bool = false, of map: inout OpenMap,
                                  _ element: (inout CBORWriter, Element) -> Void) {
        guard let array, !(omitEmpty && array.isEmpty) else { return }
        key.write(to: &self, of: &map)
        arrayHead(count: array.count)
        for item in array { element(&self, item) }
    }

    /// The `options` map, names in canonical order; written as absent when empty.
    mutating func member(_ key: some MemberKey, options: [String: Bool], of map: inout OpenMap) {
        guard !options.isEmpty else { return }
        key.write(to: &self, of: &map)
        value(.map(CBORMap(options.map { (.text($0.key), .bool($0.value)) })))
    }
}
