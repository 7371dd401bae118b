import CardCrypto

/// The card's non-volatile memory: everything that survives the card leaving the NFC field.
///
/// Volatile state (PIN/UV auth tokens, key-agreement keys, consecutive PIN failures, pending
/// getNextAssertion/enumeration state) lives in the authenticator's session and is lost at
/// power-off.
public struct CardState: Sendable, Equatable {
    /// The profile the card was made from (stored so an image reopens as the same kind of card).
    public var profile: CardProfile
    /// Root secret from which credential-wrapping and hmac-secret keys derive. Reset replaces it,
    /// which invalidates every non-discoverable credential ID the card ever issued.
    public var masterSecret: [UInt8]
    /// LEFT(SHA-256(PIN), 16) when a PIN is set (CTAP 2.1 §6.5.5.5).
    public var pinHash: [UInt8]?
    /// Length of the current PIN in Unicode code points (for `forcePINChange`-style policy checks).
    public var pinCodePoints: Int
    /// Remaining PIN attempts; 8 after set/reset, 0 means blocked until reset.
    public var pinRetries: Int
    /// The global signature counter shared by CTAP2 and U2F, as made durable: the highest value
    /// the card may have handed out (with a reservation, values up to it are handed out from RAM).
    public var signatureCounter: UInt32
    /// Discoverable credentials in creation order.
    public var residentCredentials: [ResidentCredential]
    /// Creation serial for the next discoverable credential (orders "most recent first").
    public var nextCredentialSerial: UInt64
    /// The minimum PIN length setMinPINLength set (nil: the profile's).
    public var minPINLength: Int?
    /// RP IDs setMinPINLength allowed to read the minimum PIN length (minPinLength extension).
    public var minPinLengthRPIDs: [String]
    /// Whether the PIN must be changed before it is used again (getInfo forcePINChange).
    public var forcePINChange: Bool
    /// The alwaysUv setting (meaningful when the profile has the feature).
    public var alwaysUv: Bool
    /// Whether enableEnterpriseAttestation was called.
    public var enterpriseAttestationEnabled: Bool
    /// The serialized large-blob array: the CBOR array and LEFT(SHA-256(array), 16).
    public var largeBlobArray: [UInt8]
    /// The persistent pinUvAuthToken (CTAP 2.2 `pcmr`), once issued; it survives power cycles
    /// until the PIN changes or the card is reset.
    public var persistentToken: [UInt8]?
    /// Moves with every change to the discoverable credentials (encCredStoreState).
    public var credentialStoreVersion: UInt64

    /// The maximum number of PIN retries (CTAP 2.1 §6.5.2.2).
    public static let maximumPINRetries = 8

    /// The large-blob array of a new card: an empty CBOR array and its checksum.
    public static let emptyLargeBlobArray: [UInt8] = [0x80] + Array(SHA256.hash([0x80]).prefix(16))

    /// A blank card: no PIN, no credentials, a fresh master secret.
    public init(profile: CardProfile, masterSecret: [UInt8]) {
        self.profile = profile
        self.masterSecret = masterSecret
        self.pinHash = nil
        self.pinCodePoints = 0
        self.pinRetries = Self.maximumPINRetries
        self.signatureCounter = 0
        self.residentCredentials = []
        self.nextCredentialSerial = 1
        self.minPINLength = nil
        self.minPinLengthRPIDs = []
        self.forcePINChange = false
        self.alwaysUv = profile.alwaysUv ?? false
        self.enterpriseAttestationEnabled = false
        self.largeBlobArray = Self.emptyLargeBlobArray
        self.persistentToken = nil
        self.credentialStoreVersion = 0
    }

    public var isPINSet: Bool { pinHash != nil }

    /// The minimum PIN length in force.
    public var effectiveMinPINLength: Int { max(profile.minPINLength, minPINLength ?? 0) }
}

/// A discoverable (resident) credential as stored on the card.
public struct ResidentCredential: Sendable, Equatable {
    /// The credential ID handed to the platform (a wrapped key, see `CredentialWrapper`).
    public var id: [UInt8]
    public var rpId: String
    public var rpName: String?
    public var userId: [UInt8]
    public var userName: String?
    public var userDisplayName: String?
    /// The COSE algorithm of the credential's key.
    public var algorithm: Int
    /// The private key in CardCrypto's compact form for `algorithm` (a P-256 key: its 32-byte scalar).
    public var privateKey: [UInt8]
    /// credProtect level 1...3 (CTAP 2.1 §12.1).
    public var credProtect: UInt8
    /// Whether the credential was made with the hmac-secret extension.
    public var hmacSecret: Bool
    /// Creation order: higher is newer.
    public var serial: UInt64
    /// The credBlob stored with it (CTAP 2.1 §12.2).
    public var credBlob: [UInt8]?
    /// Its largeBlobKey (CTAP 2.1 §12.3), when one was asked for.
    public var largeBlobKey: [UInt8]?
    /// Whether it was made for third-party payment (CTAP 2.2 thirdPartyPayment).
    public var thirdPartyPayment: Bool

    public init(id: [UInt8], rpId: String, rpName: String?, userId: [UInt8], userName: String?,
                userDisplayName: String?, algorithm: Int = -7, privateKey: [UInt8], credProtect: UInt8, hmacSecret: Bool,
                serial: UInt64, credBlob: [UInt8]? = nil, largeBlobKey: [UInt8]? = nil, thirdPartyPayment: Bool = false) {
        self.id = id
        self.rpId = rpId
        self.rpName = rpName
        self.userId = userId
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
        self.serial = serial
        self.credBlob = credBlob
        self.largeBlobKey = largeBlobKey
        self.thirdPartyPayment = thirdPartyPayment
    }
}
