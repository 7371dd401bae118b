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

    var encoded: CBORValue {
        var map: CBORMap = ["id": .text(id)]
        if let name { map["name"] = .text(name) }
        return .map(map)
    }
}

extension CredentialUser {
    /// A `PublicKeyCredentialUserEntity` (WebAuthn §5.4.3) from a request: `id` is required.
    init(decoding entity: EntityMap) throws(CTAPStatus) {
        guard let id = try entity.bytes("id") else { throw .missingParameter }
        self.init(id: id, name: try entity.text("name"), displayName: try entity.text("displayName"))
    }

    /// The user entity as the card sends it.
    var encoded: CBORValue {
        var map: CBORMap = ["id": .bytes(id)]
        if let name { map["name"] = .text(name) }
        if let displayName { map["displayName"] = .text(displayName) }
        return .map(map)
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

    var encoded: CBORValue { .map(["alg": .int(algorithm), "type": .text(type)]) }
}
