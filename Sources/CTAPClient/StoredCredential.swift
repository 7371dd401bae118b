import CBOR
import FIDOWire

/// A discoverable credential as credential management lists it (CTAP 2.1 §6.8.3).
public struct StoredCredential: Sendable {
    /// The relying party it belongs to.
    public let relyingParty: RelyingPartyEntity
    /// `user` (0x06).
    public let user: UserEntity
    /// `credentialID` (0x07).
    public let credential: CredentialDescriptor
    /// `publicKey` (0x08).
    public let publicKey: COSEPublicKey
    /// `credProtect` (0x0A), when the card reports it.
    public let credProtect: Int?

    init(_ map: CBORMap, relyingParty: RelyingPartyEntity) throws(CTAPClientError) {
        guard let user = map[CredentialManagementResponseKey.user] else { throw .malformedResponse("a listed credential without user") }
        guard let id = map[CredentialManagementResponseKey.credentialID] else { throw .malformedResponse("a listed credential without credentialID") }
        guard let key = map[CredentialManagementResponseKey.publicKey] else { throw .malformedResponse("a listed credential without publicKey") }
        self.relyingParty = relyingParty
        self.user = try UserEntity(cbor: user)
        credential = try CredentialDescriptor(cbor: id)
        publicKey = try COSEPublicKey(fromCard: key)
        credProtect = map[CredentialManagementResponseKey.credProtect]?.intValue
    }
}
