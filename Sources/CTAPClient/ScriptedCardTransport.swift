import FIDOWire
/// A stand-in card that answers from a transcript: each expected command APDU with the response
/// to give. Lets a test drive the client against exact bytes (a card's recorded answers, or a
/// misbehaving card) without any card at all.
///
/// A command that differs from the next expected one is a ``CardTransportError/failed(_:)``
/// naming both, so a test sees where the client left the script. Not thread-safe.
public final class ScriptedCardTransport: CardTransport {
    /// One step of the script.
    public enum Step: Sendable, Equatable {
        /// Expect exactly `command`, answer `response`.
        case exchange(command: [UInt8], response: [UInt8])
        /// Expect any command, answer `response` (for commands whose bytes are random, e.g. ones
        /// carrying a fresh key agreement).
        case anyCommand(response: [UInt8])
        /// Expect any command and fail as if the card had left the field.
        case cardRemoved
    }

    private var steps: [Step]
    /// Every command received so far, in order.
    public private(set) var received: [[UInt8]] = []

    /// A card that will play `steps` in order.
    public init(_ steps: [Step]) {
        self.steps = steps
    }

    /// Whether every step has been played.
    public var isFinished: Bool { steps.isEmpty }

    public func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        received.append(apdu)
        guard !steps.isEmpty else {
            throw .failed("the transcript has ended, but the client sent \(Hex.string(apdu))")
        }
        switch steps.removeFirst() {
        case .exchange(let command, let response):
            guard command == apdu else {
                throw .failed("the transcript expects \(Hex.string(command)), the client sent \(Hex.string(apdu))")
            }
            return response
        case .anyCommand(let response):
            return response
        case .cardRemoved:
            throw .cardRemoved("the transcript takes the card away here")
        }
    }
}
