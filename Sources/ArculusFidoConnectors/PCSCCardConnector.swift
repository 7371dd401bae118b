import ArculusSDK
import CTAPClient
import Dispatch
import PCSC

/// The card on a named PC/SC reader (a desktop reader, or the emulator's vpcd reader while
/// `arculus-card serve` runs): `ArculusFido(card: PCSCCardConnector(reader: "Virtual PCD 00 00"))`.
///
/// Each tap opens a PC/SC context and a shared connection inside a transaction (so no other
/// application's APDUs land between the pieces of a chained command), ended and disconnected
/// (leaving the card as it is) when the operation closes it. PC/SC calls run on a queue of the
/// connection's; the SDK's timeouts and cancellation bound every wait for them.
public struct PCSCCardConnector: CardConnector {
    /// The reader's name, as pcscd lists it.
    public let reader: String
    /// Whether a tap waits for a card to be put on the reader (until the SDK's tap timeout or a
    /// cancel) rather than failing at once when the reader is empty.
    public let waitsForCard: Bool

    /// The card on `reader`; `waitsForCard: false` makes an empty reader 600 Tag Lost at once.
    public init(reader: String, waitsForCard: Bool = true) {
        self.reader = reader
        self.waitsForCard = waitsForCard
    }

    public func connect() async throws(CardTransportError) -> any CardConnection {
        let queue = DispatchQueue(label: "ArculusFidoSDKFramework.pcsc")
        let reader = reader
        let context = try await Self.onQueue(queue, reader: reader) { () throws(PCSCError) in try PCSCContext() }
        // Without waiting, an empty reader is the connection's own error (SCARD_E_NO_SMARTCARD).
        while waitsForCard {
            try Self.throwIfCancelled()
            let present = try await Self.onQueue(queue, reader: reader) { () throws(PCSCError) in
                try context.waitForCardPresent(reader: reader, timeout: .milliseconds(200))
            }
            if present { break }
        }
        let card = try await Self.connectShared(context, reader: reader, on: queue)
        return BlockingCardConnection(PCSCCardTransport(card: card.value, endsTransaction: true), queue: queue)
    }

    /// A shared connection to the card in `reader`, in a transaction. Another application's
    /// exclusive connection or transaction is waited for a little, as PC/SC clients do, before
    /// the card is called unavailable.
    static func connectShared(_ context: PCSCContext, reader: String,
                              on queue: DispatchQueue) async throws(CardTransportError) -> UncheckedCard {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(2))
        while true {
            try throwIfCancelled()
            let connected = try await onQueue(queue, reader: reader) { () throws(PCSCError) -> UncheckedCard? in
                do throws(PCSCError) {
                    let card = try context.connect(reader: reader)
                    try card.beginTransaction()
                    return UncheckedCard(value: card)
                } catch where error.code == .sharingViolation && clock.now < deadline {
                    return nil
                }
            }
            if let connected { return connected }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    static func throwIfCancelled() throws(CardTransportError) {
        if Task.isCancelled { throw .cancelled }
    }

    /// `body` on `queue` (PC/SC handles are used from one queue at a time), its PC/SC errors in
    /// the SDK's terms.
    static func onQueue<T>(_ queue: DispatchQueue, reader: String,
                           _ body: @escaping () throws(PCSCError) -> T) async throws(CardTransportError) -> T {
        let box = UncheckedBody(body)
        let result: Result<UncheckedValue<T>, CardTransportError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(PCSCError) {
                    continuation.resume(returning: .success(UncheckedValue(value: try box.body())))
                } catch {
                    continuation.resume(returning: .failure(PCSCCardTransport.transportError(error, reader: reader)))
                }
            }
        }
        return try result.get().value
    }
}

/// A PC/SC card handle carried between the connector's queue and its task: it is only ever
/// used on that queue.
struct UncheckedCard: @unchecked Sendable {
    let value: PCSCCard
}

/// A value made on a connector's queue, handed back to the task that waits for it.
struct UncheckedValue<T>: @unchecked Sendable {
    let value: T
}

/// Work for a connector's queue, which alone runs it.
private struct UncheckedBody<T>: @unchecked Sendable {
    let body: () throws(PCSCError) -> T
    init(_ body: @escaping () throws(PCSCError) -> T) { self.body = body }
}
