import CTAPClient
import Dispatch
import Synchronization

/// The one connection of a tap, as the CTAP client sees it: a synchronous ``CardTransport`` whose
/// every exchange waits for the asynchronous ``CardConnection``, at most ``answerLimit`` per
/// answer, and no longer once the operation is cancelled.
///
/// The CTAP client runs on the SDK's card queue (never on a task's thread), so blocking that
/// queue while the connection's task answers is safe. An answer that misses the limit leaves the
/// connection in an unknown state: every later exchange of this tap fails at once.
final class CardLink: Sendable {
    let connection: any CardConnection
    let answerLimit: Duration

    private struct State {
        var cancelled = false
        /// Why the connection can no longer be used (an answer that never came).
        var stuck: String?
        /// Whether an exchange was left unfinished (timed out or cancelled): the connection may
        /// still be busy with it.
        var abandoned = false
        /// Ends the exchange under way with ``CardTransportError/cancelled``.
        var cancelPending: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    init(connection: any CardConnection, answerLimit: Duration) {
        self.connection = connection
        self.answerLimit = answerLimit
    }

    /// The transport the CTAP client drives.
    var transport: any CardTransport { Transport(link: self) }

    /// Stops every wait of this tap now and later: the operation was cancelled.
    func cancel() {
        let pending = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            return state.cancelPending
        }
        pending?()
    }

    /// Ends the tap: closes the connection, waiting for that at most ``answerLimit`` (whether or
    /// not the operation was cancelled: the reader connection is released before the SDK returns).
    /// After an exchange that was left unfinished the connection may be busy with it for good, so
    /// it is closed without waiting.
    func close() async {
        let connection = connection
        guard !state.withLock({ $0.abandoned }) else {
            Task { await connection.close() }
            return
        }
        _ = try? await CardWait.value(within: answerLimit, honouringCancellation: false,
                                      timedOut: { .timedOut("the connection did not close") }) { () throws(CardTransportError) in
            await connection.close()
        }
    }

    /// Runs `work` on the connection and blocks the calling thread until it answers, the answer
    /// limit passes, or the operation is cancelled.
    func exchange<T: Sendable>(_ work: @escaping @Sendable (any CardConnection) async throws(CardTransportError) -> T) throws(CardTransportError) -> T {
        let answer = PendingAnswer<T>()
        let refusal = state.withLock { state -> CardTransportError? in
            if state.cancelled { return .cancelled }
            if let stuck = state.stuck { return .failed(stuck) }
            state.cancelPending = { answer.finish(.failure(.cancelled)) }
            return nil
        }
        if let refusal { throw refusal }
        let connection = connection
        let task = Task {
            do throws(CardTransportError) {
                answer.finish(.success(try await work(connection)))
            } catch {
                answer.finish(.failure(error))
            }
        }
        let outcome = answer.wait(upTo: answerLimit)
        state.withLock { $0.cancelPending = nil }
        guard let outcome else {
            task.cancel()
            let limit = CardTimeouts.text(answerLimit)
            state.withLock {
                $0.stuck = "the card is still busy with an APDU it did not answer within \(limit)"
                $0.abandoned = true
            }
            throw .timedOut("the card did not answer within \(limit)")
        }
        if case .failure(.cancelled) = outcome {
            task.cancel()
            state.withLock { $0.abandoned = true }
        }
        return try outcome.get()
    }

    private struct Transport: CardTransport {
        let link: CardLink

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            try link.exchange { connection throws(CardTransportError) in try await connection.transmit(apdu) }
        }

        func powerCycle() throws(CardTransportError) {
            try link.exchange { connection throws(CardTransportError) in try await connection.powerCycle() }
        }
    }
}

/// One answer awaited by a blocked thread.
private final class PendingAnswer<T: Sendable>: Sendable {
    /// Unset, or the first outcome: a result, or nil for "the limit passed".
    private enum Slot {
        case unset
        case set(Result<T, CardTransportError>?)

        var isSet: Bool { if case .set = self { true } else { false } }
        var value: Result<T, CardTransportError>? { if case .set(let value) = self { value } else { nil } }
    }

    private let result = Mutex<Slot>(.unset)
    private let ready = DispatchSemaphore(value: 0)

    /// Delivers `outcome` unless another came first; whether it was first.
    @discardableResult
    func finish(_ outcome: Result<T, CardTransportError>?) -> Bool {
        let first = result.withLock { stored -> Bool in
            guard !stored.isSet else { return false }
            stored = .set(outcome)
            return true
        }
        if first { ready.signal() }
        return first
    }

    /// The outcome, or nil when `limit` passed first (later outcomes are then dropped).
    func wait(upTo limit: Duration) -> Result<T, CardTransportError>? {
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        if ready.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .timedOut, finish(nil) {
            return nil
        }
        return result.withLock { $0.value }
    }
}
