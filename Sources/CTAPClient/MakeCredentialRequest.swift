import CBOR
import FIDOWire

/// The parameters of authenticatorMakeCredential (CTAP 2.1 §6.1) a platform chooses.
public struct MakeCredentialRequest: Sendable {
    /// SHA-256 of the clientDataJSON.
    public var clientDataHash: [UInt8]
    /// The relying party.
    public var relyingParty: RelyingPartyEntity
    /// The account.
    public var user: UserEntity
    /// COSE algorithms in order of preference; ES256 by default.
    public var algorithms: [Int]
    /// Credentials the card must not already hold for this RP.
    public var excludeList: [CredentialDescriptor]
    /// Make a discoverable (resident) credential (option `rk`).
    public var residentKey: Bool
    /// Extension inputs, by identifier.
    public var extensions: CBORMap?

    /// A request; by default a discoverable ES256 credential.
    public init(clientDataHash: [UInt8], relyingParty: RelyingPartyEntity, user: UserEntity,
                algorithms: [Int] = [COSEPublicKey.es256], excludeList: [CredentialDescriptor] = [],
                residentKey: Bool = true, extensions: CBORMap? = nil) {
        self.clientDataHash = clientDataHash
        self.relyingParty = relyingParty
        self.user = user
        self.algorithms = algorithms
        self.excludeList = excludeList
        self.residentKey = residentKey
        self.extensions = extensions
    }
}
