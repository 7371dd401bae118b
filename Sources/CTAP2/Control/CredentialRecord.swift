import CardCrypto
import FIDOWire

/// A credential as a test reads it: its ID, whom it is for, and its public key, so a test can
/// verify the card's signatures with nothing but this record. The card makes them (state
/// control); a test only reads them.
public struct CredentialRecord: Sendable, Equatable {
    /// The credential ID the card hands out and recognises.
    public var id: [UInt8]
    /// The relying party ID.
    public var rpId: String
    /// The relying party's name (stored with discoverable credentials only).
    public var rpName: String?
    /// The user (a non-discoverable credential keeps only what the test passed when it was made).
    public var user: CredentialUser
    /// Whether the card stores it (resident) or only recognises its ID.
    public var discoverable: Bool
    /// The credential's public key, of its algorithm (``algorithm``).
    public var publicKey: CredentialPublicKey
    /// credProtect level 1...3.
    public var credProtect: UInt8
    /// Whether it answers the hmac-secret extension.
    public var hmacSecret: Bool

    /// The credential's COSE algorithm (ES256, EdDSA, ES384, …: any the profile offers).
    public var algorithm: SignatureAlgorithm { publicKey.algorithm }

    /// The public key as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo), the form most verifiers load.
    public var publicKeyPEM: String { publicKey.pem }
}
