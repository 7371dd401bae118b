/// One change to the card's non-volatile memory. Commands express what they change as
/// mutations, so that a card image can persist a change in time independent of how much the
/// card holds (a journal record), and so that tests can cut power between persistence steps.
public enum CardMutation: Sendable, Equatable {
    /// A new PIN: its hash and length; the retry counter goes back to its maximum, forcePINChange
    /// is cleared and the persistent pinUvAuthToken is forgotten.
    case setPIN(hash: [UInt8], codePoints: Int)
    /// The PIN removed (a test double's state control; no CTAP command does this): the retry
    /// counter back to its maximum, forcePINChange cleared, the persistent pinUvAuthToken forgotten.
    case clearPIN
    /// The PIN retry counter.
    case setPINRetries(Int)
    /// The global signature counter (made durable: the highest value that may be handed out).
    case setSignatureCounter(UInt32)
    /// A new discoverable credential (the newest).
    case addCredential(ResidentCredential)
    /// A discoverable credential deleted.
    case removeCredential(id: [UInt8])
    /// A discoverable credential's user name and display name replaced (nil removes one).
    case updateUser(id: [UInt8], name: String?, displayName: String?)
    /// authenticatorReset: new master secret; credentials, PIN, PIN policy, alwaysUv, enterprise
    /// attestation and large blobs back to a new card's. The signature counter and the profile stay.
    case reset(masterSecret: [UInt8])
    /// setMinPINLength: the minimum length, the RP IDs that may read it, and forcePINChange.
    case setPINPolicy(minimumLength: Int, rpIDs: [String], forcePINChange: Bool)
    /// toggleAlwaysUv's new value.
    case setAlwaysUv(Bool)
    /// enableEnterpriseAttestation.
    case enableEnterpriseAttestation
    /// A new serialized large-blob array.
    case setLargeBlobArray([UInt8])
    /// The persistent pinUvAuthToken, issued (or forgotten with nil).
    case setPersistentToken([UInt8]?)
}

extension CardMutation {
    /// Whether this change deletes credentials (one, or all of them in a reset).
    var removesCredentials: Bool {
        switch self {
        case .removeCredential, .reset: true
        default: false
        }
    }
}

extension CardState {
    /// Applies one mutation in place.
    public mutating func apply(_ mutation: CardMutation) {
        switch mutation {
        case .setPIN(let hash, let codePoints):
            pinHash = hash
            pinCodePoints = codePoints
            pinRetries = Self.maximumPINRetries
            forcePINChange = false
            persistentToken = nil
        case .clearPIN:
            pinHash = nil
            pinCodePoints = 0
            pinRetries = Self.maximumPINRetries
            forcePINChange = false
            persistentToken = nil
        case .setPINRetries(let retries):
            pinRetries = retries
        case .setSignatureCounter(let counter):
            signatureCounter = counter
        case .addCredential(let credential):
            residentCredentials.append(credential)
            nextCredentialSerial = max(nextCredentialSerial, credential.serial + 1)
            credentialStoreVersion &+= 1
        case .removeCredential(let id):
            residentCredentials.removeAll { $0.id == id }
            credentialStoreVersion &+= 1
        case .updateUser(let id, let name, let displayName):
            if let position = residentCredentials.firstIndex(where: { $0.id == id }) {
                residentCredentials[position].userName = name
                residentCredentials[position].userDisplayName = displayName
            }
            credentialStoreVersion &+= 1
        case .reset(let masterSecret):
            let counter = signatureCounter
            let serial = nextCredentialSerial
            let version = credentialStoreVersion
            self = CardState(profile: profile, masterSecret: masterSecret)
            signatureCounter = counter
            nextCredentialSerial = serial
            credentialStoreVersion = version &+ 1
        case .setPINPolicy(let minimumLength, let rpIDs, let force):
            minPINLength = minimumLength
            minPinLengthRPIDs = rpIDs
            forcePINChange = force
        case .setAlwaysUv(let value):
            alwaysUv = value
        case .enableEnterpriseAttestation:
            enterpriseAttestationEnabled = true
        case .setLargeBlobArray(let array):
            largeBlobArray = array
        case .setPersistentToken(let token):
            persistentToken = token
        }
    }
}
