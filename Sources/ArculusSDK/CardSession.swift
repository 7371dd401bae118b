import CTAPClient
import Dispatch

/// One tap of the card: the connection, the selected FIDO applet and its getInfo, for the
/// operations of one SDK call.
///
/// Card transports are not thread-safe (PC/SC handles, the in-process card), so every use of the
/// client happens on one serial queue; async callers await it. That invariant, kept by this type
/// alone, is why it may be `@unchecked Sendable`.
final class CardSession: @unchecked Sendable {
    /// Only touched on `queue`.
    private let client: CTAPClient
    private let queue: DispatchQueue
    /// The SDK operation this tap serves, for messages.
    let operation: String

    private init(client: CTAPClient, queue: DispatchQueue, operation: String) {
        self.client = client
        self.queue = queue
        self.operation = operation
    }

    /// Connects through `connector` and opens the card (SELECT, getInfo) on `queue`.
    static func open(_ connector: any CardConnector, queue: DispatchQueue, operation: String) async throws(ArculusFidoError) -> CardSession {
        try await Self.onQueue(queue) { () throws(ArculusFidoError) -> CardSession in
            do {
                let transport = try connector.connect()
                return CardSession(client: try CTAPClient(transport: transport), queue: queue, operation: operation)
            } catch let error as CardTransportError {
                throw ArculusFidoError(.transport(error), during: operation)
            } catch let error as CTAPClientError {
                throw ArculusFidoError(error, during: operation)
            } catch {
                throw ArculusFidoError(.unknown, "\(operation): \(error)")
            }
        }
    }

    /// Runs `body` with the card's client on the card queue.
    func perform<T: Sendable>(_ body: @escaping @Sendable (CTAPClient, String) throws(ArculusFidoError) -> T) async throws(ArculusFidoError) -> T {
        try await Self.onQueue(queue) { () throws(ArculusFidoError) -> T in
            try body(self.client, self.operation)
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
