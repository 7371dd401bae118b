import ArculusCard

/// A credential to put on a card without a makeCredential (``ControlRequest/addCredential(_:)``,
/// `arculus-card image`): the card's ``CredentialSeed`` plus the two members of WebDriver's
/// virtual-authenticator credentials (WebDriver §11.7 "Credential Parameters") that are not
/// part of a seed, so that credential fixtures from browser tests carry over.
///
/// - ``signCount``: the card keeps one signature counter for all its credentials, so a
///   credential's count is the card's. A given count raises the card's counter to at least that
///   value (it never lowers it); listings print the card's counter as every credential's.
/// - ``credentialId``: the card mints every ID (it wraps the private key under the card's own
///   secret with a fresh IV), so an ID cannot be chosen, and the card cannot store an arbitrary
///   one. A given ID is accepted only when it names a discoverable credential the card already
///   holds with exactly these details (then nothing is added: the answer is that credential);
///   any other ID is refused with an error naming `credentialId`.
public struct CredentialParameters: Sendable {
    /// What the card stores or mints.
    public var seed: CredentialSeed
    /// The least value the card's signature counter must have afterwards.
    public var signCount: UInt32?
    /// The ID the credential must have (see the type's rule).
    public var credentialId: [UInt8]?

    public init(_ seed: CredentialSeed, signCount: UInt32? = nil, credentialId: [UInt8]? = nil) {
        self.seed = seed
        self.signCount = signCount
        self.credentialId = credentialId
    }
}

extension CredentialParameters: Equatable {
    /// Equal when they describe the same credential (private keys compared by algorithm and bytes).
    public static func == (lhs: CredentialParameters, rhs: CredentialParameters) -> Bool {
        let a = lhs.seed
        let b = rhs.seed
        return a.rpId == b.rpId && a.rpName == b.rpName && a.user == b.user && a.discoverable == b.discoverable
            && a.keyAlgorithm == b.keyAlgorithm && a.privateKey?.privateKeyBytes == b.privateKey?.privateKeyBytes
            && a.credProtect == b.credProtect
            && a.hmacSecret == b.hmacSecret && lhs.signCount == rhs.signCount && lhs.credentialId == rhs.credentialId
    }
}
