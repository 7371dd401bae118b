/// The card's non-volatile memory: everything that survives the card leaving the NFC field.
///
/// Volatile state (PIN token, key-agreement key, consecutive PIN failures, pending
/// getNextAssertion/enumeration state) lives in `Authenticator` and is lost at power-off.
public struct CardState: Sendable, Equatable {
    /// The profile the card was made from (stored so an image reopens as the same card model).
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
    /// The global signature counter shared by CTAP2 and U2F.
    public var signatureCounter: UInt32
    /// Discoverable credentials in creation order.
    public var residentCredentials: [ResidentCredential]
    /// Creation serial for the next discoverable credential (orders "most recent first").
    public var nextCredentialSerial: UInt64

    /// The maximum number of PIN retries (CTAP 2.1 §6.5.2.2).
    public static let maximumPINRetries = 8

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
    }

    public var isPINSet: Bool { pinHash != nil }
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
    /// The P-256 private scalar (32 bytes).
    public var privateKey: [UInt8]
    /// credProtect level 1...3 (CTAP 2.1 §12.1).
    public var credProtect: UInt8
    /// Whether the credential was made with the hmac-secret extension.
    public var hmacSecret: Bool
    /// Creation order: higher is newer.
    public var serial: UInt64

    public init(id: [UInt8], rpId: String, rpName: String?, userId: [UInt8], userName: String?,
                userDisplayName: String?, privateKey: [UInt8], credProtect: UInt8, hmacSecret: Bool,
                serial: UInt64) {
        self.id = id
        self.rpId = rpId
        self.rpName = rpName
        self.userId = userId
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.privateKey = privateKey
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
        self.serial = serial
    }
}
