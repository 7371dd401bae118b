import CBOR
import FIDOWire

/// `PublicKeyCredentialRpEntity` (WebAuthn §5.4.2) as makeCredential carries it.
struct RelyingPartyEntity: Sendable, Equatable {
    var id: String
    var name: String?
}

extension RelyingPartyEntity {
    init(decoding entity: EntityMap) throws(CTAPStatus) {
        guard let id = try entity.text("id") else { throw .missingParameter }
        self.id = id
        name = try entity.text("name")
    }
}

extension CredentialUser {
    /// A `PublicKeyCredentialUserEntity` (WebAuthn §5.4.3) from a request: `id` is required.
    init(decoding entity: EntityMap) throws(CTAPStatus) {
        guard let id = try entity.bytes("id") else { throw .missingParameter }
        self.init(id: id, name: try entity.text("name"), displayName: try entity.text("displayName"))
    }
}

/// One `PublicKeyCredentialParameters` entry (WebAuthn §5.3): a credential type and a COSE
/// algorithm the relying party accepts.
struct CredentialParameters: Sendable, Equatable {
    var type: String
    var algorithm: Int
}

extension CredentialParameters {
    init(decoding value: CBORValue) throws(CTAPStatus) {
        let entity = try EntityMap(value: value)
        guard let type = try entity.text("type") else { throw .missingParameter }
        guard let algorithm = entity["alg"] else { throw .missingParameter }
        guard let number = algorithm.intValue else { throw .cborUnexpectedType }
        self.type = type
        self.algorithm = number
    }
}

/// The member names of the WebAuthn entities and parameters (WebAuthn §5.4.2, §5.4.3, §5.3).
enum EntityMember: String, MemberKey {
    case id, name, displayName, alg, type
}

extension RelyingPartyEntity: CTAPSerializable {
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(EntityMember.id, text: id, of: &map)
        writer.member(EntityMember.name, text: name, of: &map)
        writer.close(map)
    }
}

extension CredentialUser: CTAPSerializable {
    /// The user entity as the card sends it.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(EntityMember.id, bytes: id, of: &map)
        writer.member(EntityMember.name, text: name, of: &map)
        writer.member(EntityMember.displayName, text: displayName, of: &map)
        writer.close(map)
    }
}

extension CredentialParameters: CTAPSerializable {
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(EntityMember.alg, int: algorithm, of: &map)
        writer.member(EntityMember.type, text: type, of: &map)
        writer.close(map)
    }
}
