import CTAP2

/// A change to the card's memory that could not be made durable: which write, and why. The card
/// answered CTAP1_ERR_OTHER (U2F: `6A80`; a state control throws) and kept its previous state.
///
/// Or, with ``changeKept``, the upkeep after a change failed: the change is durable and the
/// command succeeded, but the image could not be compacted (or rewritten without a secret the
/// change retired) and stays so until a later write succeeds.
public struct CardWriteFailure: Error, CustomStringConvertible, Sendable {
    /// The command whose changes were being written; nil for a state control.
    public let command: CardCommand?
    /// The changes that were not written.
    public let changes: [CardMutation]
    /// Why not: the storage's error, or an injected torn write.
    public let reason: String
    /// The changes were made durable; what failed is the compaction after them.
    public let changeKept: Bool

    public init(command: CardCommand?, changes: [CardMutation], reason: String, changeKept: Bool = false) {
        self.command = command
        self.changes = changes
        self.reason = reason
        self.changeKept = changeKept
    }

    public var description: String {
        let what = changes.map(\.summary).joined(separator: ", ")
        if changeKept {
            return "\(command.map { "\($0): " } ?? "")\(what) was stored, but compacting the image after it failed: \(reason)"
        }
        return "\(command.map { "\($0): " } ?? "")writing \(what) failed: \(reason)"
    }
}

extension CardMutation {
    /// A few words for messages: `signature counter 42`, `new credential for example.com`.
    public var summary: String {
        switch self {
        case .setPIN: "a new PIN"
        case .clearPIN: "PIN removal"
        case .setPINRetries(let retries): "PIN retries \(retries)"
        case .setSignatureCounter(let counter): "signature counter \(counter)"
        case .addCredential(let credential): "new credential for \(credential.rpId)"
        case .removeCredential: "credential deletion"
        case .updateUser: "user information"
        case .reset: "reset"
        case .setPINPolicy(let length, _, _): "minimum PIN length \(length)"
        case .setAlwaysUv(let value): "alwaysUv \(value ? "on" : "off")"
        case .enableEnterpriseAttestation: "enterprise attestation"
        case .setLargeBlobArray: "large-blob array"
        case .setPersistentToken: "persistent PIN token"
        }
    }
}
