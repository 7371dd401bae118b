import Synchronization

/// One request handed from the channel's thread to the card's, and what became of it: still
/// waiting for the card, started, withdrawn, or answered.
///
/// The card's thread starts the request only if the channel has not withdrawn it, and the
/// channel withdraws it at its deadline only if the card has not started it — one atomic
/// compare-and-exchange decides which, so a request that timed out before it started is
/// certainly never run (the client is told nothing changed), and one that started is never
/// reported as not run.
public final class ControlChannelPendingRequest: Sendable {
    /// The request line.
    public let line: String
    /// When the channel stops waiting for it.
    public let deadline: ContinuousClock.Instant

    private static let waiting: UInt8 = 0, running: UInt8 = 1, withdrawn: UInt8 = 2, answered: UInt8 = 3
    private let state = Atomic<UInt8>(ControlChannelPendingRequest.waiting)
    private let answerText = Mutex<String?>(nil)

    /// A request not yet taken, to be withdrawn at `deadline` unless the card has started it.
    public init(line: String, deadline: ContinuousClock.Instant) {
        self.line = line
        self.deadline = deadline
    }

    // MARK: - On the card's thread

    /// Claims the request for running; false when it was withdrawn (then it must not run).
    public func begin() -> Bool {
        state.compareExchange(expected: Self.waiting, desired: Self.running, ordering: .sequentiallyConsistent).exchanged
    }

    /// The request's answer.
    public func finish(_ answer: String) {
        answerText.withLock { $0 = answer }
        state.store(Self.answered, ordering: .sequentiallyConsistent)
    }

    // MARK: - On the channel's thread

    /// The answer, once the card has given it.
    public var answer: String? {
        state.load(ordering: .sequentiallyConsistent) == Self.answered ? answerText.withLock { $0 } : nil
    }

    /// What the request's deadline finds.
    public enum Expiry: Equatable, Sendable {
        /// The card had not started it; it is withdrawn and will never run.
        case withdrawn
        /// The card has started it and not finished.
        case running
        /// The answer came just in time.
        case answered(String)
    }

    /// Withdraws the request unless the card has started it.
    public func expire() -> Expiry {
        if state.compareExchange(expected: Self.waiting, desired: Self.withdrawn, ordering: .sequentiallyConsistent).exchanged {
            return .withdrawn
        }
        if let answer { return .answered(answer) }
        return .running
    }
}
