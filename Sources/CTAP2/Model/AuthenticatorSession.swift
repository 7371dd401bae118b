import CardCrypto

/// What the authenticator forgets when the card leaves the field (CTAP 2.1 §6.5.2.1 and the NFC
/// binding): it exists from one power-on to the next power-off, and nothing in it is ever written
/// to the card image.
public struct AuthenticatorSession: Sendable {
    /// Each PIN/UV auth protocol's key-agreement key and pinUvAuthToken (its `initialize()` state).
    var protocols: [PINUVAuthProtocol: PINUVAuthProtocolState]
    /// The pinUvAuthToken's state, shared by the protocols (only one token is in use at a time).
    var token = PINUVAuthTokenState()
    /// Wrong PINs in a row since power-up; three block PIN use until the next power cycle.
    var consecutivePINFailures = 0
    /// What getNextAssertion continues from.
    var pendingAssertions: PendingAssertions?
    /// The RPs enumerateRPsGetNextRP still has to return.
    var rpEnumeration: [String]?
    /// The credentials enumerateCredentialsGetNextCredential still has to return.
    var credentialEnumeration: [ResidentCredential]?
    /// Whether the enumeration in progress was begun with the persistent (read-only) token.
    var enumerationIsReadOnly = false
    /// A large-blob array being written in fragments (authenticatorLargeBlobs set).
    var largeBlobWrite: LargeBlobWrite?
    /// When the card was powered (the reset window counts from here).
    var poweredOnAt: CardInstant
    /// Credential keys already made for signing, by credential ID (see `signingKey`).
    var signingKeys: [ByteKey: (material: CredentialKeyMaterial, key: CredentialPrivateKey)] = [:]
    /// Credential IDs already unwrapped, with the RP ID hash they were unwrapped for (see
    /// `credential(id:rpIdHash:)`).
    var unwrappedCredentials: [ByteKey: UnwrappedCredential] = [:]
    /// The RP ID last hashed for a getAssertion, with its SHA-256 (see `rpIdHash(_:)`).
    var lastRPIDHash: (rpId: String, hash: [UInt8])?

    /// A session that starts at `now`: each protocol in `protocols` initialised (a new key
    /// agreement key, then a new token, protocol 1 before 2).
    init(at now: CardInstant, protocols numbers: [Int], random: inout CardRandom) {
        var protocols: [PINUVAuthProtocol: PINUVAuthProtocolState] = [:]
        for number in numbers.sorted() {
            guard let pinProtocol = PINUVAuthProtocol(rawValue: number) else { continue }
            protocols[pinProtocol] = PINUVAuthProtocolState(random: &random)
        }
        self.protocols = protocols
        poweredOnAt = now
    }

    /// The pieces of volatile state by name, for tests that check a power cycle clears each.
    public var inventory: [(name: String, isInitial: Bool)] {
        [
            ("pinUvAuthToken", !token.inUse),
            ("consecutivePINFailures", consecutivePINFailures == 0),
            ("pendingAssertions", pendingAssertions == nil),
            ("rpEnumeration", rpEnumeration == nil),
            ("credentialEnumeration", credentialEnumeration == nil),
            ("largeBlobWrite", largeBlobWrite == nil),
            ("credentialCache", signingKeys.isEmpty && unwrappedCredentials.isEmpty && lastRPIDHash == nil),
        ]
    }

    /// `resetPinUvAuthToken()` for every protocol: new token values, and the token state back to
    /// its initial values (CTAP 2.1 §6.5.5.7 step "for all pinUvAuthProtocols").
    mutating func resetTokens(random: inout CardRandom) {
        for number in protocols.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            protocols[number]?.token = random.bytes(32)
        }
        token = PINUVAuthTokenState()
    }
}

/// One PIN/UV auth protocol's state (CTAP 2.1 §6.5.4): its key-agreement key and its token value.
struct PINUVAuthProtocolState: Sendable {
    var keyAgreementKey: P256PrivateKey
    var token: [UInt8]

    /// `initialize()`: `regenerate()` then `resetPinUvAuthToken()`.
    init(random: inout CardRandom) {
        keyAgreementKey = random.p256Key()
        token = random.bytes(32)
    }
}

/// A serialized large-blob array arriving in fragments (CTAP 2.1 §6.10.2).
struct LargeBlobWrite: Sendable, Equatable {
    /// The length announced with the first fragment.
    var expectedLength: Int
    /// The bytes so far.
    var bytes: [UInt8]
}

/// A credential ID the card unwrapped, and the RP ID hash it was unwrapped for.
struct UnwrappedCredential: Sendable {
    var rpIdHash: [UInt8]
    var contents: CredentialWrapper.Contents
}
