import CBOR

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

extension CardMutation {
    /// CBOR form for journal records: `[kind, fields…]`.
    func encoded() -> CBORValue {
        switch self {
        case .setPIN(let hash, let codePoints):
            return ["pin", .bytes(hash), .int(codePoints)]
        case .setPINRetries(let retries):
            return ["retries", .int(retries)]
        case .setSignatureCounter(let counter):
            return ["counter", .unsigned(UInt64(counter))]
        case .addCredential(let credential):
            return ["add", credential.encoded()]
        case .removeCredential(let id):
            return ["remove", .bytes(id)]
        case .updateUser(let id, let name, let displayName):
            return ["user", .bytes(id), name.map { .text($0) } ?? .null, displayName.map { .text($0) } ?? .null]
        case .reset(let masterSecret):
            return ["reset", .bytes(masterSecret)]
        }
    }

    init(decoding value: CBORValue) throws(CardImageError.Reason) {
        guard let fields = value.arrayValue, let kind = fields.first?.textValue else {
            throw .malformed("a journal record is not [kind, …]")
        }
        func optionalText(_ value: CBORValue) -> String? { value.textValue }
        switch (kind, fields.count) {
        case ("pin", 3):
            guard let hash = fields[1].bytesValue, hash.count == 16, let codePoints = fields[2].intValue else { break }
            self = .setPIN(hash: hash, codePoints: codePoints)
            return
        case ("retries", 2):
            guard let retries = fields[1].intValue, (0...CardState.maximumPINRetries).contains(retries) else { break }
            self = .setPINRetries(retries)
            return
        case ("counter", 2):
            guard let counter = fields[1].uint64Value, counter <= UInt64(UInt32.max) else { break }
            self = .setSignatureCounter(UInt32(counter))
            return
        case ("add", 2):
            self = .addCredential(try ResidentCredential(decoding: fields[1]))
            return
        case ("remove", 2):
            guard let id = fields[1].bytesValue else { break }
            self = .removeCredential(id: id)
            return
        case ("user", 4):
            guard let id = fields[1].bytesValue else { break }
            self = .updateUser(id: id, name: optionalText(fields[2]), displayName: optionalText(fields[3]))
            return
        case ("reset", 2):
            guard let secret = fields[1].bytesValue, secret.count == 32 else { break }
            self = .reset(masterSecret: secret)
            return
        default:
            break
        }
        throw .malformed("journal record '\(kind)' has the wrong fields")
    }
}
