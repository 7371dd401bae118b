import CTAPClient
import Synchronization

/// One tap of the card: the connection the connector gave, as the CTAP client's asynchronous
/// transport, with every wait for it bounded.
///
/// The operation's card work (``run(_:)``) runs in one task of its own, which awaits each APDU's
/// answer from the connection directly: no thread waits for an APDU and none hops between
/// queues for it (a synchronous connection is adapted once, at the edge, by
/// ``BlockingCardConnection``). The task that awaits the work stops waiting as soon as one of
/// three things happens, whether or not the connection notices:
///
/// - the work ends (its result, or its error);
/// - an APDU is not answered within ``answerLimit`` (607, and the tap ends): a watchdog task,
///   one per tap, sleeps until the deadline of the exchange under way;
/// - the operation's task is cancelled (701).
///
/// The tap's state is one value (``State``): idle, awaiting an answer (until when), or ended
/// (why, and whether an exchange was left unanswered, after which the connection may stay busy
/// with it for good).
final class CardTap: AsyncCardTransport, Sendable {
    private enum State {
        /// Between APDUs.
        case idle
        /// An APDU's answer is awaited until `deadline`.
        case exchanging(deadline: ContinuousClock.Instant)
        /// Cancelled or timed out: every later exchange fails with `reason`; `abandoned` when
        /// an exchange was under way.
        case ended(reason: CardTransportError, abandoned: Bool)
    }

    let connection: any CardConnection
    let answerLimit: Duration
    private let clock = ContinuousClock()
    private let state = Mutex(State.idle)

    init(connection: any CardConnection, answerLimit: Duration) {
        self.connection = connection
        self.answerLimit = CardTimeouts.bounded(answerLimit)
    }

    /// Runs `work` in a task of its own and returns its result, or the tap's end (the answer
    /// limit passed, or the calling task was cancelled) as soon as that comes first.
    func run<T: Sendable>(during operation: ArculusFidoOperation,
                          _ work: @escaping @Sendable () async throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        let ended = { @Sendable (reason: CardTransportError) in ArculusFidoError(.transport(reason), during: operation) }
        let result = await FirstOutcome<T, ArculusFidoError>.first(of: work, watcher: { outcome in
            await self.watch { outcome.finish(.failure(ended($0))) }
        }, onCancel: { outcome in
            self.end(.cancelled) { outcome.finish(.failure(ended($0))) }
        })
        return try result.get()
    }

    /// One APDU on the connection, awaited in the calling task; refused at once after the tap ended.
    func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8] {
        let deadline = clock.now.advanced(by: answerLimit)
        try state.withLock { state throws(CardTransportError) in
            if case .ended(let reason, _) = state { throw reason }
            state = .exchanging(deadline: deadline)
        }
        let answer: Result<[UInt8], CardTransportError>
        do {
            answer = .success(try await connection.transmit(apdu))
        } catch {
            answer = .failure(error)
        }
        try state.withLock { state throws(CardTransportError) in
            if case .ended(let reason, _) = state { throw reason }
            state = .idle
        }
        return try answer.get()
    }

    /// Ends the tap for `reason` (the first end counts): `finish` ends the wait, later exchanges fail.
    private func end(_ reason: CardTransportError, _ finish: (CardTransportError) -> Void) {
        let first = state.withLock { state -> Bool in
            switch state {
            case .ended: return false
            case .exchanging: state = .ended(reason: reason, abandoned: true)
            case .idle: state = .ended(reason: reason, abandoned: false)
            }
            return true
        }
        if first { finish(reason) }
    }

    /// Sleeps until the deadline of the exchange under way (or an answer limit from now between
    /// exchanges) and ends the tap when an answer is late, with `finish`; stops when cancelled.
    private func watch(_ finish: (CardTransportError) -> Void) async {
        while !Task.isCancelled {
            let wake = state.withLock { state -> ContinuousClock.Instant? in
                switch state {
                case .exchanging(let deadline): deadline
                case .idle: clock.now.advanced(by: answerLimit)
                case .ended: nil
                }
            }
            guard let wake else { return }
            do {
                try await Task.sleep(until: wake, clock: clock)
            } catch {
                return
            }
            let late = state.withLock { state -> Bool in
                if case .exchanging(let deadline) = state { return deadline <= clock.now }
                return false
            }
            if late { end(.timedOut("the card did not answer within \(CardTimeouts.text(answerLimit))"), finish) }
        }
    }

    /// Ends the tap: closes the connection, waiting for that at most ``answerLimit`` (whether or
    /// not the operation was cancelled: the reader connection is released before the SDK
    /// returns). After an exchange that was left unanswered the connection may be busy with it
    /// for good, so it is closed without waiting.
    func close() async {
        let connection = connection
        let abandoned = state.withLock { state -> Bool in
            if case .ended(_, let abandoned) = state { return abandoned }
            return false
        }
        guard !abandoned else {
            Task { await connection.close() }
            return
        }
        _ = try? await CardWait.value(within: answerLimit, honouringCancellation: false,
                                      timedOut: { .timedOut("the connection did not close") }) { () throws(CardTransportError) in
            await connection.close()
        }
    }
}
