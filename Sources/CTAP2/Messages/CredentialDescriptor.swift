import CBOR
import FIDOWire

/// A `PublicKeyCredentialDescriptor` (WebAuthn §5.10.3) as allow and exclude lists carry it.
struct CredentialDescriptor: Sendable, Equatable {
    /// `public-key` for every credential this card knows; other types are skipped, not refused.
    var type = "public-key"
    /// The credential ID.
    var id: [UInt8]
    /// The transports hint, passed through untouched.
    var transports: [CBORValue]? = nil
}

extension CredentialDescriptor {
    /// Reads a descriptor: `type` and `id` are required, `transports` must be an array.
    init(decoding value: CBORValue) throws(CTAPStatus) {
        let entity = try EntityMap(value: value)
        guard let type = try entity.text("type") else { throw .missingParameter }
        guard let id = try entity.bytes("id") else { throw .missingParameter }
        if let transports = entity["transports"] {
            guard case .array(let list) = transports else { throw .cborUnexpectedType }
            self.transports = list
        }
        self.type = type
        self.id = id
    }

    /// A list of descriptors (absent is empty).
    static func list(decoding values: [CBORValue]?) throws(CTAPStatus) -> [CredentialDescriptor] {
        guard let values else { return [] }
        var result: [CredentialDescriptor] = []
        result.reserveCapacity(values.count)
        for value in values { result.append(try CredentialDescriptor(decoding: value)) }
        return result
    }

    /// `{"id": …, "type": …}` (and `transports` when set), as the card answers with it.
    var encoded: CBORValue {
        var map: CBORMap = ["id": .bytes(id), "type": .text(type)]
        if let transports { map["transports"] = .array(transports) }
        return .map(map)
    }

    /// Appends ``encoded``'s bytes. The card's own `{"id", "type"}` is written directly ("id"
    /// sorts before any type longer than two bytes); anything else goes through the tree.
    func encode(into output: inout [UInt8]) {
        guard transports == nil, type.utf8.count > 2 else {
            CBOREncoder.encode(encoded, into: &output)
            return
        }
        output.append(contentsOf: [0xA2, 0x62, 0x69, 0x64] as [UInt8])  // {2 members, "id"
        CBOREncoder.appendBytes(id, to: &output)
        output.append(contentsOf: [0x64, 0x74, 0x79, 0x70, 0x65] as [UInt8])  // "type"
        CBOREncoder.appendText(type, to: &output)
    }
}
