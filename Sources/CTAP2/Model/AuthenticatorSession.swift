import CardCrypto
import FIDOWire

/// What the authenticator forgets when the card leaves the field (CTAP 2.1 §6.5.2.1 and the NFC
/// binding): it exists from one power-on to the next power-off, and nothing in it is ever written
/// to the card image.
@dynamicMemberLookup
public struct AuthenticatorSession: Sendable {
    /// The session's values, in one box that copies share until one of them changes (copy on
    /// write): the authenticator keeps the session as it was before each command, to put it back
    /// if the command's write fails or it stops to ask the person, and most commands change
    /// nothing in it, so keeping it costs one reference instead of a copy of every value.
    private var box: Box

    private final class Box: @unchecked Sendable {
        // Sendable: a box is changed only through the member subscript's modify, when no other
        // copy holds it.
        // Unchecked: no access to it can overlap another (only the copy that holds the box alone
        // changes it, within its own mutation), and the checks cost more than the reads.
        @exclusivity(unchecked) var values: Values
        init(_ values: Values) { self.values = values }
    }

    /// The values, by name: `session.token` reads and changes ``Values/token`` in the box. Public
    /// as a type only (its members are the module's), for the public member subscript.
    public struct Values: Sendable {
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
    }

    /// One of the values: read from the box, or changed in it once it is this copy's own.
    public subscript<Value>(dynamicMember member: WritableKeyPath<Values, Value>) -> Value {
        get { box.values[keyPath: member] }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
            yield &box.values[keyPath: member]
        }
    }

    /// A session that starts at `now`: each protocol in `protocols` initialised (a new key
    /// agreement key, then a new token, protocol 1 before 2).
    init(at now: CardInstant, protocols numbers: [Int], random: inout CardRandom) {
        var protocols: [PINUVAuthProtocol: PINUVAuthProtocolState] = [:]
        for number in numbers.sorted() {
            guard let pinProtocol = PINUVAuthProtocol(rawValue: number) else { continue }
            protocols[pinProtocol] = PINUVAuthProtocolState(random: &random)
        }
        box = Box(Values(protocols: protocols, poweredOnAt: now))
        isPowered = true
    }

    /// Whether this is the session of a powered card: false only for ``unpowered``.
    let isPowered: Bool

    /// The session of a card that went off at `now` (``Authenticator/session``): nothing
    /// initialised, nothing held, and not powered.
    static func unpowered(at now: CardInstant) -> AuthenticatorSession {
        AuthenticatorSession(unpoweredAt: now)
    }

    private init(unpoweredAt now: CardInstant) {
        box = Box(Values(protocols: [:], poweredOnAt: now))
        isPowered = false
    }

    /// Before `command` runs: what only another command continues is forgotten — a pending
    /// getNextAssertion, a credential-management enumeration, a large-blob write in fragments.
    /// Only what is there is cleared, so a command that continues nothing leaves the session
    /// shared with the copy kept to put it back.
    mutating func forgetContinuations(before command: CTAPCommand?) {
        if command != .getNextAssertion && box.values.pendingAssertions != nil { self.pendingAssertions = nil }
        if command != .credentialManagement && command != .credentialManagementPreview
            && (box.values.rpEnumeration != nil || box.values.credentialEnumeration != nil) {
            self.rpEnumeration = nil
            self.credentialEnumeration = nil
        }
        if command != .largeBlobs && box.values.largeBlobWrite != nil { self.largeBlobWrite = nil }
    }

    /// The pieces of volatile state by name, for tests that check a power cycle clears each.
    public var inventory: [(name: String, isInitial: Bool)] {
        let values = box.values
        return [
            ("pinUvAuthToken", !values.token.inUse),
            ("consecutivePINFailures", values.consecutivePINFailures == 0),
            ("pendingAssertions", values.pendingAssertions == nil),
            ("rpEnumeration", values.rpEnumeration == nil),
            ("credentialEnumeration", values.credentialEnumeration == nil),
            ("largeBlobWrite", values.largeBlobWrite == nil),
            ("credentialCache", values.signingKeys.isEmpty && values.unwrappedCredentials.isEmpty && values.lastRPIDHash == nil),
        ]
    }

    /// `resetPinUvAuthToken()` for every protocol: new token values, and the token state back to
    /// its initial values (CTAP 2.1 §6.5.5.7 step "for all pinUvAuthProtocols").
    mutating func resetTokens(random: inout CardRandom) {
        for number in self.protocols.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            self.protocols[number]?.token = random.bytes(32)
        }
        self.token = PINUVAuthTokenState()
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
