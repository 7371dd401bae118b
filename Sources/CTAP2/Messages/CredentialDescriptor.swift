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

/// The descriptor's member names.
enum DescriptorMember: String, MemberKey {
    case id, type, transports
}

extension CredentialDescriptor: CTAPMessage {
    /// Reads a descriptor: `type` and `id` are required (in that order), `transports` must be an
    /// array (of anything).
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap<DescriptorMember>(&reader) else { return .failure(.cborUnexpectedType) }
        var type = Member<String>.absent
        var id = Member<[UInt8]>.absent
        var transports = Member<[CBORValue]>.absent
        while let member = try members.next(&reader) {
            switch member {
            case .id: id = try reader.byteString()
            case .type: type = try reader.text()
            case .transports: transports = try reader.array { reader throws(CBORError) in try reader.anyValue() }
            }
        }
        return Result { () throws(CTAPStatus) in
            let type = try type.required()
            return CredentialDescriptor(type: type, id: try id.required(), transports: try transports.optional())
        }
    }

    /// `{"id": …, "type": …}` (and `transports` when set), as the card answers with it.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(DescriptorMember.id, bytes: id, of: &map)
        writer.member(DescriptorMember.type, text: type, of: &map)
        writer.member(DescriptorMember.transports, array: transports, of: &map) { $0.value($1) }
        writer.close(map)
    }
}
