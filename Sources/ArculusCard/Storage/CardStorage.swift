import CTAP2

/// Where the card's non-volatile memory lives. The card model returns each change it makes;
/// ``VirtualCard`` commits it here before the answer leaves, so an acknowledged change is always
/// durable.
public protocol CardStorage: AnyObject {
    /// The stored state, or nil for a card that was never written (a blank card).
    func load() throws(CardImageError) -> CardState?
    /// Stores a whole state (a new card, or state set directly by a test).
    func save(_ state: CardState) throws(CardImageError)
    /// Makes `mutations` durable, all or none, applied to the state last loaded or saved.
    func commit(_ mutations: [CardMutation]) throws(CardImageError)
}

/// Non-volatile memory kept in the process, for tests and throw-away cards.
public final class InMemoryStorage: CardStorage {
    /// The stored state.
    public private(set) var state: CardState?
    /// Number of completed writes (saves and commits), for tests that count them.
    public private(set) var saveCount = 0

    public init(state: CardState? = nil) { self.state = state }

    public func load() throws(CardImageError) -> CardState? { state }

    public func save(_ state: CardState) throws(CardImageError) {
        self.state = state
        saveCount += 1
    }

    public func commit(_ mutations: [CardMutation]) throws(CardImageError) {
        guard state != nil else {
            throw CardImageError(path: "(in memory)", reason: .io("commit before the card was created"))
        }
        for mutation in mutations { state!.apply(mutation) }
        saveCount += 1
    }
}

/// Why a card image cannot be used. Always names the file.
public struct CardImageError: Error, CustomStringConvertible, Equatable {
    public enum Reason: Error, Equatable, Sendable {
        case notACardImage
        case unsupportedVersion(UInt8)
        case damaged(String)
        case malformed(String)
        case locked
        case io(String)
        case profileMismatch(image: String, requested: String)
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notACardImage:
            "\(path) is not an Arculus card image (wrong magic number); refusing to overwrite it"
        case .unsupportedVersion(let version):
            "\(path) is a card image of format version \(version), which this build cannot read"
        case .damaged(let why):
            "card image \(path) is damaged (\(why)); it was not reset — restore it or delete it to start a blank card"
        case .malformed(let why):
            "card image \(path) has a valid checksum but unreadable contents (\(why))"
        case .locked:
            "card image \(path) is in use by another process (its lock file is held)"
        case .io(let why):
            "card image \(path): \(why)"
        case .profileMismatch(let image, let requested):
            "card image \(path) holds a '\(image)' card, not '\(requested)'; pass --profile \(image) or use another image"
        }
    }
}
