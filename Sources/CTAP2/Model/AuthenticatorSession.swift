import CardCrypto

/// What the authenticator forgets when the card leaves the field (CTAP 2.1 §6.5.2.1 and the NFC
/// binding): it exists from one power-on to the next power-off, and nothing in it is ever written
/// to the card image.
public struct AuthenticatorSession: Sendable {
    /// The PIN/UV auth protocols' key-agreement key (regenerated at power-up and after a wrong PIN).
    var keyAgreementKey: P256PrivateKey
    /// The pinUvAuthToken and its permissions, once a PIN was given.
    var token: PINUVAuthToken?
    /// Wrong PINs in a row since power-up; three block PIN use until the next power cycle.
    var consecutivePINFailures = 0
    /// What getNextAssertion continues from.
    var pendingAssertions: PendingAssertions?
    /// The RPs enumerateRPsGetNextRP still has to return.
    var rpEnumeration: [String]?
    /// The credentials enumerateCredentialsGetNextCredential still has to return.
    var credentialEnumeration: [ResidentCredential]?
    /// When the card was powered (the reset window counts from here).
    var poweredOnAt: CardInstant
    /// Credential keys already imported for signing, by credential ID (see `signingKey`).
    var signingKeys: [[UInt8]: P256PrivateKey] = [:]

    /// A session that starts at `now`, with a new key-agreement key.
    init(at now: CardInstant, random: inout CardRandom) {
        keyAgreementKey = random.p256Key()
        poweredOnAt = now
    }

    /// The pieces of volatile state by name, for tests that check a power cycle clears each.
    public var inventory: [(name: String, isInitial: Bool)] {
        [
            ("pinUvAuthToken", token == nil),
            ("consecutivePINFailures", consecutivePINFailures == 0),
            ("pendingAssertions", pendingAssertions == nil),
            ("rpEnumeration", rpEnumeration == nil),
            ("credentialEnumeration", credentialEnumeration == nil),
            ("signingKeyCache", signingKeys.isEmpty),
        ]
    }
}
