import Synchronization

/// The first of several outcomes racing to end one wait (a worker's result, a time-out, a
/// cancellation), delivered once to the task that awaits it; the later ones are dropped.
final class FirstOutcome<T: Sendable, Failure: Error>: Sendable {
    private struct State {
        var result: Result<T, Failure>?
        var continuation: CheckedContinuation<Result<T, Failure>, Never>?
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Delivers `result` unless another came first.
    func finish(_ result: Result<T, Failure>) {
        let (continuation, onFinish) = state.withLock { state -> (CheckedContinuation<Result<T, Failure>, Never>?, (@Sendable () -> Void)?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer { state.continuation = nil; state.onFinish = nil }
            return (state.continuation, state.onFinish)
        }
        onFinish?()
        continuation?.resume(returning: result)
    }

    /// Resumes `continuation` with the first result (at once if it is already there), then runs
    /// `onFinish`.
    func wait(_ continuation: CheckedContinuation<Result<T, Failure>, Never>, onFinish: @escaping @Sendable () -> Void) {
        let ready = state.withLock { state -> Result<T, Failure>? in
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

    /// Runs `work` in a task of its own with `watcher` beside it (a timer, a watchdog), and
    /// returns the first outcome: the work's, or one `watcher` or `onCancel` (when the calling task
    /// is cancelled) finishes with. The work and the watcher are cancelled then; work that ignores
    /// cancellation is left to finish unobserved.
    static func first(of work: @escaping @Sendable () async throws(Failure) -> T,
                      watcher: @escaping @Sendable (FirstOutcome) async -> Void,
                      onCancel: @escaping @Sendable (FirstOutcome) -> Void) async -> Result<T, Failure> {
        let outcome = FirstOutcome()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
                let worker = Task {
                    do throws(Failure) {
                        outcome.finish(.success(try await work()))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
                let watching = Task { await watcher(outcome) }
                outcome.wait(continuation) {
                    worker.cancel()
                    watching.cancel()
                }
            }
        } onCancel: {
            onCancel(outcome)
        }
    }
}
