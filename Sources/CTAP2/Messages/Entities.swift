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

extension RelyingPartyEntity: CTAPMessage, DeclaredMembers {
    enum Name: String, MemberKey { case id, name }

    /// `id` is required.
    static let members = MessageMembers<Self, Name>([.required(.id, \.id, .text), .optional(.name, \.name, .text)])
    static let initial = RelyingPartyEntity(id: "")
}

/// A `PublicKeyCredentialUserEntity` (WebAuthn §5.4.3) from a request, or as the card sends it.
extension CredentialUser: CTAPMessage, DeclaredMembers {
    enum Name: String, MemberKey { case id, name, displayName }

    /// `id` is required.
    static let members = MessageMembers<Self, Name>([
        .required(.id, \.id, .bytes), .optional(.name, \.name, .text), .optional(.displayName, \.displayName, .text),
    ])
    static let initial = CredentialUser(id: [])
}

extension CredentialParameters: CTAPMessage, DeclaredMembers {
    enum Name: String, MemberKey { case alg, type }

    /// `type` and `alg` are required (in that order); `alg` is an integer.
    static let members = MessageMembers<Self, Name>([.required(.type, \.type, .text), .required(.alg, \.algorithm, .integer)])
    static let initial = CredentialParameters(type: "", algorithm: 0)
}
