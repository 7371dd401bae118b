import FIDOWire
/// The card left the NFC field instead of answering (an injected ``FaultEffect/leaveField(away:)``
/// fault, or a card that already left): there is no response, as a reader sees when the card
/// vanishes mid-command. ``VirtualCard/exchange(_:)`` throws it; ``VirtualCard/transmit(_:)``
/// answers an empty array instead (no real response is shorter than SW1 SW2).
///
/// The card stays away until the host power-cycles it (`powerOn()`, `powerOff()` or
/// `powerCycle()`), as tapping it again would.
public struct CardRemovedError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command APDU that got no answer.
    public let command: [UInt8]

    /// The error for `command`.
    public init(command: [UInt8]) {
        self.command = command
    }

    public var description: String {
        "the card left the field: no response to the command \(Array(command.prefix(4)).hexString.uppercased())…"
    }
}
