import CBOR
import FIDOWire

/// The names of a message's members: the keys of its map, integers for CTAP's parameter maps
/// (the wire vocabulary's key enums), text for WebAuthn's structures.
protocol MemberKey {
    /// The member the key read names, or nil for a key the message does not know.
    init?(key: CBORToken)
    /// Writes the key as the next member of `map`.
    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap)
}

extension MemberKey where Self: RawRepresentable, RawValue == Int {
    init?(key: CBORToken) {
        guard case .unsigned(let number) = key, number <= UInt64(Int.max) else { return nil }
        self.init(rawValue: Int(number))
    }

    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap) { writer.key(rawValue, of: &map) }
}

extension MemberKey where Self: RawRepresentable, RawValue == String {
    init?(key: CBORToken) {
        guard case .text(let utf8) = key else { return nil }
        self.init(rawValue: String(decoding: utf8, as: UTF8.self))
    }

    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap) { writer.key(rawValue, of: &map) }
}

extension GetAssertionKey: MemberKey {}
extension GetAssertionResponseKey: MemberKey {}
extension MakeCredentialKey: MemberKey {}
extension MakeCredentialResponseKey: MemberKey {}
extension ClientPINKey: MemberKey {}
extension ClientPINResponseKey: MemberKey {}
extension CredentialManagementKey: MemberKey {}
extension CredentialManagementParameterKey: MemberKey {}
extension CredentialManagementResponseKey: MemberKey {}
extension ConfigKey: MemberKey {}
extension SetMinPINLengthKey: MemberKey {}
extension LargeBlobsKey: MemberKey {}
extension LargeBlobsResponseKey: MemberKey {}
extension GetInfoKey: MemberKey {}
extension HMACSecretInputKey: MemberKey {}

/// A message's map as it is read, member by member in whatever order they come: ``next(_:)``
/// gives each member the message knows, and skips (checking them) the others, as CTAP 2.1 §8
/// asks of unknown keys. A key sent twice is INVALID_CBOR (``CBORMapKeys``).
struct MemberMap<Key: MemberKey> {
    private var remaining: Int
    private var keys: CBORMapKeys
    private var isClosed = false

    /// Reads the map's head; nil, with the item read whole, when the next item is not a map.
    init?(_ reader: inout CBORReader) throws(CBORError) {
        let token = try reader.next()
        guard case .map(let count) = token else {
            try reader.skip(restOf: token)
            return nil
        }
        remaining = count
        keys = reader.startMapKeys()
    }

    /// The next member's key, whose value the caller reads next; nil once the map is read.
    mutating func next(_ reader: inout CBORReader) throws(CBORError) -> Key? {
        while remaining > 0 {
            remaining -= 1
            if let key = Key(key: try reader.mapKey(&keys)) { return key }
            _ = try reader.skipItem()
        }
        if !isClosed {
            isClosed = true
            reader.endContainer()
        }
        return nil
    }
}
