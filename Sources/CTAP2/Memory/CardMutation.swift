
/// One change to the card's non-volatile memory. Commands express what they change as
/// mutations, so that a card image can persist a change in time independent of how much the
/// card holds (a journal record), and so that tests can cut power between persistence steps.
public enum CardMutation: Sendable, Equatable {
    /// A new PIN: its hash and length; the retry counter goes back to its maximum.
    case setPIN(hash: [UInt8], codePoints: Int)
    /// The PIN retry counter.
    case setPINRetries(Int)
    /// The global signature counter.
    case setSignatureCounter(UInt32)
    /// A new discoverable credential (the newest).
    case addCredential(ResidentCredential)
    /// A discoverable credential deleted.
    case removeCredential(id: [UInt8])
    /// A discoverable credential's user name and display name replaced.
    case updateUser(id: [UInt8], name: String?, displayName: String?)
    /// authenticatorReset: new master secret; credentials and PIN gone, retries at maximum.
    /// The signature counter and the profile stay.
    case reset(masterSecret: [UInt8])
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
        case .setPINRetries(let retries):
            pinRetries = retries
        case .setSignatureCounter(let counter):
            signatureCounter = counter
        case .addCredential(let credential):
            residentCredentials.append(credential)
            nextCredentialSerial = max(nextCredentialSerial, credential.serial + 1)
        case .removeCredential(let id):
            residentCredentials.removeAll { $0.id == id }
        case .updateUser(let id, let name, let displayName):
            if let position = residentCredentials.firstIndex(where: { $0.id == id }) {
                residentCredentials[position].userName = name
                residentCredentials[position].userDisplayName = displayName
            }
        case .reset(let masterSecret):
            let counter = signatureCounter
            let serial = nextCredentialSerial
            self = CardState(profile: profile, masterSecret: masterSecret)
            signatureCounter = counter
            nextCredentialSerial = serial
        }
    }
}
