import CTAPClient
import Dispatch

/// One tap of the card: the connection, the selected FIDO applet and its getInfo, for the
/// operations of one SDK call.
///
/// The CTAP client is synchronous and not thread-safe, so every use of it happens on one serial
/// queue, which async callers await; its transport (``CardLink``) waits there for the
/// connection's asynchronous answers. That invariant, kept by this type alone, is why it may be
/// `@unchecked Sendable`.
final class CardSession: @unchecked Sendable {
    /// Only touched on `queue`; nil once closed.
    private var client: CTAPClient?
    private let queue: DispatchQueue
    private let link: CardLink
    /// The SDK operation this tap serves, for messages.
    let operation: ArculusFidoOperation

    private init(link: CardLink, queue: DispatchQueue, operation: ArculusFidoOperation) {
        self.link = link
        self.queue = queue
        self.operation = operation
    }

    /// Waits for `connector`'s card (at most `timeouts.tap`) and opens it (SELECT, getInfo) on
    /// `queue`. A failure after the connection was made closes it again.
    static func open(_ connector: any CardConnector, queue: DispatchQueue, operation: ArculusFidoOperation,
                     timeouts: CardTimeouts) async throws(ArculusFidoError) -> CardSession {
        try ArculusFidoError.throwIfCancelled(during: operation)
        let connection: any CardConnection
        do {
            let limit = CardTimeouts.text(timeouts.tap)
            connection = try await CardWait.value(within: timeouts.tap, timedOut: { .cardRemoved("none was presented within \(limit)") }) {
                () throws(CardTransportError) in try await connector.connect()
            }
        } catch {
            throw ArculusFidoError(connecting: error, during: operation)
        }
        let session = CardSession(link: CardLink(connection: connection, answerLimit: timeouts.answer), queue: queue, operation: operation)
        do throws(ArculusFidoError) {
            try await session.onQueue { () throws(ArculusFidoError) in
                do throws(CTAPClientError) {
                    session.client = try CTAPClient(transport: session.link.transport)
                } catch {
                    throw ArculusFidoError(error, during: operation)
                }
            }
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    /// Runs `body` with the card's client on the card queue.
    func perform<T: Sendable>(_ body: @escaping @Sendable (CTAPClient, ArculusFidoOperation) throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        try await onQueue { () throws(ArculusFidoError) -> T in
            guard let client = self.client else { preconditionFailure("\(self.operation) used its card session after closing it") }
            return try body(client, self.operation)
        }
    }

    /// Ends the tap: the client is released on the card queue and the connection closed before
    /// this returns, so a reader connection is released (`SCardDisconnect`, leaving the card as
    /// it is) while the process still runs. Without this, a process that exits right after an
    /// operation may leave pcscd to clean up its handle, which resets the card.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.client = nil
                continuation.resume()
            }
        }
        await link.close()
    }

    /// `body` on the card queue; cancelling the calling task ends the card wait under way (and
    /// every later one of this tap) with 701 Cancelled.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        let link = link
        let result: Result<T, ArculusFidoError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    do throws(ArculusFidoError) {
                        continuation.resume(returning: .success(try body()))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: {
            link.cancel()
        }
        return try result.get()
    }
}
