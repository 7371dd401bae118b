import CTAPClient
import Dispatch

/// One tap of the card: the connection, the selected FIDO applet and its getInfo, for the
/// operations of one SDK call.
///
/// Card transports are not thread-safe (PC/SC handles, the in-process card), so every use of the
/// client happens on one serial queue; async callers await it. That invariant, kept by this type
/// alone, is why it may be `@unchecked Sendable`.
final class CardSession: @unchecked Sendable {
    /// Only touched on `queue`; nil once closed.
    private var client: CTAPClient?
    private let queue: DispatchQueue
    /// The SDK operation this tap serves, for messages.
    let operation: ArculusFidoOperation

    private init(client: CTAPClient, queue: DispatchQueue, operation: ArculusFidoOperation) {
        self.client = client
        self.queue = queue
        self.operation = operation
    }

    /// Connects through `connector` and opens the card (SELECT, getInfo) on `queue`.
    static func open(_ connector: any CardConnector, queue: DispatchQueue, operation: ArculusFidoOperation) async throws(ArculusFidoError) -> CardSession {
        try await Self.onQueue(queue) { () throws(ArculusFidoError) -> CardSession in
            do {
                let transport = try connector.connect()
                return CardSession(client: try CTAPClient(transport: transport), queue: queue, operation: operation)
            } catch let error as CardTransportError {
                throw ArculusFidoError(.transport(error), during: operation)
            } catch let error as CTAPClientError {
                throw ArculusFidoError(error, during: operation)
            } catch {
                throw ArculusFidoError(.unknown, during: operation, "\(error)")
            }
        }
    }

    /// Runs `body` with the card's client on the card queue.
    func perform<T: Sendable>(_ body: @escaping @Sendable (CTAPClient, ArculusFidoOperation) throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        try await Self.onQueue(queue) { () throws(ArculusFidoError) -> T in
            guard let client = self.client else { preconditionFailure("\(self.operation) used its card session after closing it") }
            return try body(client, self.operation)
        }
    }

    /// Ends the tap: the client and its transport are released on the card queue before this
    /// returns, so a reader connection is closed (`SCardDisconnect`, leaving the card as it is)
    /// while the process still runs. Without this, a process that exits right after an
    /// operation may leave pcscd to clean up its handle, which resets the card.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.client = nil
                continuation.resume()
            }
        }
    }

    private static func onQueue<T: Sendable>(_ queue: DispatchQueue,
                                             _ body: @escaping @Sendable () throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        let result: Result<T, ArculusFidoError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ArculusFidoError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
