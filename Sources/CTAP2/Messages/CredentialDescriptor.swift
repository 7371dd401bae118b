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
}

/// The descriptor's member names.
enum DescriptorMember: String, MemberKey {
    case id, type, transports
}

extension CredentialDescriptor: CTAPSerializable {
    /// `{"id": …, "type": …}` (and `transports` when set), as the card answers with it.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(DescriptorMember.id, bytes: id, of: &map)
        writer.member(DescriptorMember.type, text: type, of: &map)
        writer.member(DescriptorMember.transports, array: transports, of: &map) { $0.value($1) }
        writer.close(map)
    }
}
