import CBOR
import FIDOWire

/// The names of a message's members: the keys of its map, integers for CTAP's parameter maps
/// (the wire vocabulary's key enums), text for WebAuthn's structures.
protocol MemberKey: Hashable, Sendable {
    /// The member the key read names — `key` its token, `encoded` its bytes as sent (for a text
    /// key; empty for any other) — or nil for a key the message does not know.
    init?(key: CBORToken, encoded: ArraySlice<UInt8>)
    /// A bit of the member's own among its message's, to catch it sent twice without keeping
    /// keys; nil to keep it among the map's keys (``CBORMapKeys``).
    var bit: UInt64? { get }
    /// The member whose encoding, as the card writes it, the next bytes are, read without
    /// lexing them (an encoding the card writes is well-formed); nil when they are not one.
    static func readWritten(from reader: inout CBORReader) -> Self?
    /// Writes the key as the next member of `map`.
    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap)
}

extension MemberKey {
    static func readWritten(from _: inout CBORReader) -> Self? { nil }
}

extension MemberKey where Self: RawRepresentable, RawValue == Int {
    init?(key: CBORToken, encoded _: ArraySlice<UInt8>) {
        guard case .unsigned(let number) = key, number <= UInt64(Int.max) else { return nil }
        self.init(rawValue: Int(number))
    }

    var bit: UInt64? { (0..<64).contains(rawValue) ? 1 << UInt64(rawValue) : nil }

    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap) { writer.key(rawValue, of: &map) }
}

extension MemberKey where Self: RawRepresentable, RawValue == String {
    init?(key: CBORToken, encoded: ArraySlice<UInt8>) {
        guard case .text(let utf8) = key else { return nil }
        self.init(rawValue: String(decoding: encoded.suffix(utf8.count), as: UTF8.self))
    }

    var bit: UInt64? { nil }

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
/// asks of unknown keys. A key sent twice is INVALID_CBOR: a known member by its ``MemberKey/bit``,
/// any other key through ``CBORMapKeys``.
///
/// Not generic over the key type (``next(_:)`` is): a generic struct that holds references needs
/// its type metadata looked up at run time to be destroyed, which cost a getAssertion more than
/// reading the rest of its request.
struct MemberMap {
    private var remaining: Int
    private var keys: CBORMapKeys
    /// The bits of the known members read.
    private var seen: UInt64 = 0
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
    mutating func next<Key: MemberKey>(_ reader: inout CBORReader) throws(CBORError) -> Key? {
        while remaining > 0 {
            remaining -= 1
            let start = reader.position
            let member: Key
            if let written = Key.readWritten(from: &reader) {
                member = written
            } else {
                let token = try reader.mapKey()
                let encoded = if case .text = token { reader.bytes(from: start) } else { ArraySlice<UInt8>() }
                guard let named = Key(key: token, encoded: encoded) else {
                    try reader.addKey(from: start, to: &keys)
                    _ = try reader.skipItem()
                    continue
                }
                member = named
            }
            if let bit = member.bit {
                guard seen & bit == 0 else { throw .duplicateMapKey }
                seen |= bit
            } else {
                try reader.addKey(from: start, to: &keys)
            }
            return member
        }
        if !isClosed {
            isClosed = true
            reader.endContainer()
        }
        return nil
    }
}
