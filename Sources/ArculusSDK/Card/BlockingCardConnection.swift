import CTAPClient
import Dispatch

/// A ``CardConnection`` over a synchronous ``CardTransport`` (a PC/SC handle, the in-process
/// card, a scripted card): each call runs on a serial queue of the connection's, so the task
/// that awaits it is never blocked, and a call that never returns holds up that queue alone.
///
/// Connections to one card that must never overlap (the in-process card is not thread-safe)
/// share one queue: pass it as `queue`.
///
/// `@unchecked Sendable`: the transport is touched only on `queue`.
public final class BlockingCardConnection: CardConnection, @unchecked Sendable {
    /// Nil once closed.
    private var transport: (any CardTransport)?
    private let queue: DispatchQueue

    /// A connection that runs `transport`'s calls on `queue` (by default one of its own).
    public init(_ transport: any CardTransport, queue: DispatchQueue = DispatchQueue(label: "ArculusSDK.card-connection")) {
        self.transport = transport
        self.queue = queue
    }

    public func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8] {
        try await run { transport throws(CardTransportError) in try transport.transmit(apdu) }
    }

    public func powerCycle() async throws(CardTransportError) {
        try await run { transport throws(CardTransportError) in try transport.powerCycle() }
    }

    /// Releases the transport on its queue (a PC/SC handle is disconnected there).
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.transport = nil
                continuation.resume()
            }
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (any CardTransport) throws(CardTransportError) -> T) async throws(CardTransportError) -> T {
        let result: Result<T, CardTransportError> = await withCheckedContinuation { continuation in
            queue.async {
                guard let transport = self.transport else {
                    continuation.resume(returning: .failure(.failed("the connection was closed")))
                    return
                }
                do throws(CardTransportError) {
                    continuation.resume(returning: .success(try body(transport)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
