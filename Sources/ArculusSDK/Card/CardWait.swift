import CTAPClient

/// Waiting for something the card (or its connector) does, bounded: the value, or
/// ``CardTransportError/timedOut(_:)`` when `limit` passes first, or
/// ``CardTransportError/cancelled`` as soon as the waiting task is cancelled. The work runs in a
/// task of its own, which is cancelled when the wait ends early; work that ignores cancellation
/// is left to finish unobserved, so a stuck connector never holds the caller.
enum CardWait {
    ///
    /// - Parameter honouringCancellation: false for work that must run to its end (or its limit)
    ///   even in a cancelled task, such as releasing a reader connection.
    static func value<T: Sendable>(within limit: Duration, honouringCancellation: Bool = true,
                                   timedOut: @escaping @Sendable () -> CardTransportError,
                                   _ work: @escaping @Sendable () async throws(CardTransportError) -> T) async throws(CardTransportError) -> T {
        let result = await FirstOutcome<T, CardTransportError>.first(of: work, watcher: { outcome in
            try? await Task.sleep(for: CardTimeouts.bounded(limit))
            if !Task.isCancelled { outcome.finish(.failure(timedOut())) }
        }, onCancel: { outcome in
            if honouringCancellation { outcome.finish(.failure(.cancelled)) }
        })
        return try result.get()
    }
}
