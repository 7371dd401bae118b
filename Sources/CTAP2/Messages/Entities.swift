import CBOR
import FIDOWire

/// `PublicKeyCredentialRpEntity` (WebAuthn §5.4.2) as makeCredential carries it.
struct RelyingPartyEntity: Sendable, Equatable {
    var id: String
    var name: String?
}

/// One `PublicKeyCredentialParameters` entry (WebAuthn §5.3): a credential type and a COSE
/// algorithm the relying party accepts.
struct CredentialParameters: Sendable, Equatable {
    var type: String
    var algorithm: Int
}

extension RelyingPartyEntity: CTAPMessage {
    private enum Name: String, MemberKey { case id, name }

    /// Reads the entity: `id` is required.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var id = Member<String>.absent
        var name = Member<String>.absent
        while let member: Name = try members.next(&reader) {
            switch member {
            case .id: id = try reader.text()
            case .name: name = try reader.text()
            }
        }
        return Result { () throws(CTAPStatus) in RelyingPartyEntity(id: try id.required(), name: try name.optional()) }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(Name.id, text: id, of: &map)
        writer.member(Name.name, text: name, of: &map)
        writer.close(map)
    }
}

extension CredentialUser: CTAPMessage {
    private enum Name: String, MemberKey { case id, name, displayName }

    /// A `PublicKeyCredentialUserEntity` (WebAuthn §5.4.3) from a request: `id` is required.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var id = Member<[UInt8]>.absent
        var name = Member<String>.absent
        var displayName = Member<String>.absent
        while let member: Name = try members.next(&reader) {
            switch member {
            case .id: id = try reader.byteString()
            case .name: name = try reader.text()
            case .displayName: displayName = try reader.text()
            }
        }
        return Result { () throws(CTAPStatus) in
            CredentialUser(id: try id.required(), name: try name.optional(), displayName: try displayName.optional())
        }
    }

    /// The user entity as the card sends it.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(Name.id, bytes: id, of: &map)
        writer.member(Name.name, text: name, of: &map)
        writer.member(Name.displayName, text: displayName, of: &map)
        writer.close(map)
    }
}

extension CredentialParameters: CTAPMessage {
    private enum Name: String, MemberKey { case alg, type }

    /// Reads an entry: `type` and `alg` are required (in that order); `alg` is an integer.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var type = Member<String>.absent
        var algorithm = Member<Int>.absent
        while let member: Name = try members.next(&reader) {
            switch member {
            case .alg: algorithm = try reader.integer()
            case .type: type = try reader.text()
            }
        }
        return Result { () throws(CTAPStatus) in
            let type = try type.required()
            return CredentialParameters(type: type, algorithm: try algorithm.required())
        }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(Name.alg, int: algorithm, of: &map)
        writer.member(Name.type, text: type, of: &map)
        writer.close(map)
    }
}
