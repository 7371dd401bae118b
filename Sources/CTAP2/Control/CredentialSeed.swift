import CardCrypto
import FIDOWire

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
    /// The credential's key, of any algorithm the profile offers; nil draws a new one of
    /// ``algorithm`` from the card's entropy.
    public var privateKey: CredentialPrivateKey?
    /// The algorithm of a drawn key (a given ``privateKey`` has its own).
    public var algorithm: SignatureAlgorithm
    /// credProtect level 1...3 (CTAP 2.1 §12.1); above 1 needs a profile with `credProtect`.
    public var credProtect: UInt8
    /// Whether the credential answers the hmac-secret extension (needs a profile with it).
    public var hmacSecret: Bool

    /// A credential for `rpId` and `user`.
    public init(rpId: String, rpName: String? = nil, user: CredentialUser = CredentialUser(id: []),
                discoverable: Bool = true, privateKey: CredentialPrivateKey? = nil, algorithm: SignatureAlgorithm = .es256,
                credProtect: UInt8 = 1, hmacSecret: Bool = false) {
        self.rpId = rpId
        self.rpName = rpName
        self.user = user
        self.discoverable = discoverable
        self.privateKey = privateKey
        self.algorithm = privateKey?.algorithm ?? algorithm
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
    }

    /// The algorithm the credential will have: its key's, or ``algorithm`` for a drawn one.
    public var keyAlgorithm: SignatureAlgorithm { privateKey?.algorithm ?? algorithm }

    /// Sets ``privateKey`` (and ``algorithm``) from a PEM private key: PKCS#8 `PRIVATE KEY` of
    /// any algorithm CardCrypto has, or SEC 1 `EC PRIVATE KEY` for P-256, unencrypted.
    public mutating func setPrivateKey(pem: String) throws(StateControlError) {
        do {
            let key = try CredentialPrivateKey(pemPKCS8: pem)
            privateKey = key
            algorithm = key.algorithm
        } catch {
            throw .invalidCredential("the key is not an unencrypted private key in PEM (PKCS#8, or SEC 1 for P-256)")
        }
    }
}
