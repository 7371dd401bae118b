import CardCrypto

/// A credential to put on a card directly, without a makeCredential: the test-double way to
/// start a test from a card that already knows a relying party's user.
///
/// A discoverable credential is stored on the card like one made with `rk: true`. A
/// non-discoverable one is not stored at all: its ID wraps the private key under the card's
/// master secret, bound to the RP ID hash (see `CredentialWrapper`), so "pre-loading" it means
/// minting that ID; the card recognises it when a platform sends it back.
public struct CredentialSeed: Sendable {
    /// The relying party ID (e.g. `example.com`).
    public var rpId: String
    /// The relying party's display name, stored with a discoverable credential.
    public var rpName: String?
    /// The user; a discoverable credential needs a non-empty handle, a non-discoverable one
    /// keeps nothing of it.
    public var user: CredentialUser
    /// Whether the credential is discoverable (resident).
    public var discoverable: Bool
    /// The credential's key; nil draws a new one from the card's entropy.
    public var privateKey: P256PrivateKey?
    /// credProtect level 1...3 (CTAP 2.1 §12.1); above 1 needs a profile with `credProtect`.
    public var credProtect: UInt8
    /// Whether the credential answers the hmac-secret extension (needs a profile with it).
    public var hmacSecret: Bool

    /// A credential for `rpId` and `user`.
    public init(rpId: String, rpName: String? = nil, user: CredentialUser = CredentialUser(id: []),
                discoverable: Bool = true, privateKey: P256PrivateKey? = nil, credProtect: UInt8 = 1,
                hmacSecret: Bool = false) {
        self.rpId = rpId
        self.rpName = rpName
        self.user = user
        self.discoverable = discoverable
        self.privateKey = privateKey
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
    }

    /// Sets ``privateKey`` from a PEM private key (PKCS#8 `PRIVATE KEY` or SEC 1
    /// `EC PRIVATE KEY`, unencrypted, P-256).
    public mutating func setPrivateKey(pem: String) throws(StateControlError) {
        do {
            privateKey = try P256PrivateKey(pemPKCS8: pem)
        } catch {
            throw .invalidCredential("the key is not an unencrypted P-256 private key in PEM (PKCS#8 or SEC 1)")
        }
    }
}
