import ArculusCard
import CardCrypto

/// A credential as the control protocol and `arculus-card image` print it: the card's
/// ``CredentialRecord``, its private key when it is known, and the card's signature counter
/// (WebDriver's `signCount`: see ``CredentialParameters``).
public struct CredentialListing: Sendable {
    /// ID, RP, user, public key.
    public var record: CredentialRecord
    /// The private key: known for a discoverable credential (the card stores it) and for one
    /// added with a key of the caller's; nil for a non-discoverable credential whose key the
    /// card drew (only the card can unwrap it from the ID).
    public var privateKey: CredentialPrivateKey?
    /// The card's signature counter (one for all its credentials).
    public var signCount: UInt32

    public init(record: CredentialRecord, privateKey: CredentialPrivateKey?, signCount: UInt32) {
        self.record = record
        self.privateKey = privateKey
        self.signCount = signCount
    }
}
