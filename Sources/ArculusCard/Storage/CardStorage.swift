import CTAP2

/// Where the card's non-volatile memory lives. The card model returns each change it makes;
/// ``VirtualCard`` commits it here before the answer leaves, so an acknowledged change is always
/// durable.
public protocol CardStorage: AnyObject {
    /// The stored state, or nil for a card that was never written (a blank card).
    func load() throws(CardImageError) -> CardState?
    /// Stores a whole state (a new card, or state set directly by a test).
    func save(_ state: CardState) throws(CardImageError)
    /// Makes `mutations` durable, all or none: the changes the card makes to `state`, its memory
    /// as last loaded, saved or committed here. The card holds that state; the storage keeps no
    /// copy of it to apply the changes to a second time.
    func commit(_ mutations: [CardMutation], onto state: CardState) throws(CardImageError)
    /// Why the upkeep after the last successful ``commit(_:onto:)`` failed, once, if it did: the
    /// change itself is durable, but the image could not be compacted, or still holds a secret
    /// the change retired, until a later write succeeds (``CardImageFile``). ``VirtualCard``
    /// reports it as a write failure that kept the change.
    func takeUpkeepFailure() -> CardImageError?
}

extension CardStorage {
    /// Storage without upkeep has nothing to report.
    public func takeUpkeepFailure() -> CardImageError? { nil }
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

    /// The changes, applied to the stored state (this storage is the card's memory itself, so it
    /// holds the state; `onto` is the same state, as the card holds it).
    public func commit(_ mutations: [CardMutation], onto _: CardState) throws(CardImageError) {
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
        /// A directory, device, FIFO or socket (the kind, as ``FileStatus/Kind`` names it).
        case notARegularFile(String)
        /// More bytes than ``CardImageFormat/maximumImageLength``.
        case tooLarge(Int)
        /// The process may not write it (the failing call and its error).
        case notWritable(String)
        /// The file has this many names (hard links).
        case hardLinked(Int)
        /// A symbolic link whose target does not exist.
        case danglingSymbolicLink
        /// A new image was asked for, and something is at the path.
        case alreadyExists
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
            "card image \(path) is in use by another process (it holds the image's lock)"
        case .notARegularFile(let kind):
            "\(path) is \(kind), not a card image file; refusing to use it"
        case .tooLarge(let size):
            "\(path) is \(size) bytes, more than any card image (at most \(CardImageFormat.maximumImageLength)); refusing to read it"
        case .notWritable(let why):
            "card image \(path) cannot be written by this process (\(why)); the card stores every change in it: make it writable, or use a copy"
        case .hardLinked(let names):
            "card image \(path) has \(names) names (hard links); compacting it would leave the others on the old card: remove the other names first"
        case .danglingSymbolicLink:
            "\(path) is a symbolic link to a file that does not exist; a new card image is not created through a link"
        case .alreadyExists:
            "\(path) already exists"
        case .io(let why):
            "card image \(path): \(why)"
        case .profileMismatch(let image, let requested):
            "card image \(path) holds a '\(image)' card, not '\(requested)'; pass --profile \(image) or use another image"
        }
    }
}
