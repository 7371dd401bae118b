import CTAP2

/// A test of user presence the card waits to have answered, in ``PresenceMode/ask``.
public struct PendingPresence: Sendable, Equatable {
    /// The prompt's number, which an answer names (one per prompt, counting from 1).
    public let id: Int
    /// What the command asks: the command and its relying party.
    public let prompt: PresencePrompt
    /// How long it has waited so far.
    public let waiting: Duration
}

/// Why an answer to a presence prompt was refused.
public enum PresenceError: Error, Equatable, CustomStringConvertible {
    /// No prompt with that number waits for an answer (none does, another does, or it was
    /// answered, timed out or withdrawn).
    case noSuchPrompt(Int)

    public var description: String {
        switch self {
        case .noSuchPrompt(let id): "no presence prompt \(id) is pending"
        }
    }
}
