import CTAPClient
import Synchronization

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
        let outcome = Outcome<T>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, CardTransportError>, Never>) in
                let worker = Task {
                    do throws(CardTransportError) {
                        outcome.finish(.success(try await work()))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled { outcome.finish(.failure(timedOut())) }
                }
                outcome.wait(continuation) {
                    worker.cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            if honouringCancellation { outcome.finish(.failure(.cancelled)) }
        }
        return try result.get()
    }

    /// The first result, delivered once to whoever waits for it.
    private final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, CardTransportError>?
            var continuation: CheckedContinuation<Result<T, CardTransportError>, Never>?
            var onFinish: (@Sendable () -> Void)?
        }

        private let state = Mutex(State())

        /// Delivers `result` unless another came first.
        func finish(_ result: Result<T, CardTransportError>) {
            let (continuation, onFinish) = state.withLock { state -> (CheckedContinuation<Result<T, CardTransportError>, Never>?, (@Sendable () -> Void)?) in
                guard state.result == nil else { return (nil, nil) }
                state.result = result
                defer { state.continuation = nil; state.onFinish = nil }
                return (state.continuation, state.onFinish)
            }
            onFinish?()
            continuation?.resume(returning: result)
        }

        /// Resumes `continuation` with the first result (at once if it is already there), then
        /// runs `onFinish`.
        func wait(_ continuation: CheckedContinuation<Result<T, CardTransportError>, Never>, onFinish: @escaping @Sendable () -> Void) {
            let ready = state.withLock { state -> Result<T, CardTransportError>? in
                if state.result == nil {
                    state.continuation = continuation
                    state.onFinish = onFinish
                }
                return state.result
            }
            if let ready {
                onFinish()
                continuation.resume(returning: ready)
            }
        }
    }
}
