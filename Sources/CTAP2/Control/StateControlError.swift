import FIDOWire
/// Why a direct change to a card's state (``Authenticator/changesSettingPIN(_:)`` and the other state
/// controls) was refused. The card is unchanged whenever one is thrown.
public enum StateControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PIN breaks the card's PIN policy (CTAP 2.1 §6.5.5.5): too short for the profile's
    /// minimum, over 63 bytes of UTF-8, or containing a NUL.
    case pinPolicy(String)
    /// A retry count outside 0...8.
    case retriesOutOfRange(Int)
    /// The credential cannot be made as asked (empty RP ID, user handle too long, no user
    /// handle for a discoverable credential, an option the profile does not have).
    case invalidCredential(String)
    /// The card's discoverable-credential store is full.
    case keyStoreFull(capacity: Int)
    /// No discoverable credential has this ID (non-discoverable credentials are not stored, so
    /// they cannot be removed; a reset invalidates them).
    case noSuchCredential([UInt8])
    /// Writing the card's memory failed (which write, and why); the card keeps its previous state.
    case writeFailed(String)

    public var description: String {
        switch self {
        case .pinPolicy(let why): "the PIN is refused: \(why)"
        case .retriesOutOfRange(let retries): "PIN retries must be between 0 and \(CardState.maximumPINRetries), not \(retries)"
        case .invalidCredential(let why): "the credential cannot be made: \(why)"
        case .keyStoreFull(let capacity): "the card already holds its maximum of \(capacity) discoverable credentials"
        case .noSuchCredential(let id):
            "no discoverable credential with ID \(id.hexString) (non-discoverable credentials are not stored on the card)"
        case .writeFailed(let why): "writing the card's memory failed (\(why)); the card is unchanged"
        }
    }
}
