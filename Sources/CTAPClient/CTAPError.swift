import FIDOWire
/// A CTAP command the card answered with an error status (CTAP 2.1 §8.2): which command (and
/// subcommand), the status byte and its name.
///
/// ```
/// authenticatorClientPIN getPinUvAuthTokenUsingPinWithPermissions: CTAP2_ERR_PIN_INVALID (0x31)
/// ```
public struct CTAPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status the card answered.
    public let status: CTAPStatus
    /// The command that was answered.
    public let command: CTAPCommand
    /// The subcommand, when the command has them (clientPIN, credentialManagement), by name.
    public let subcommand: String?

    /// An error answer `status` to `command`.
    public init(status: CTAPStatus, command: CTAPCommand, subcommand: String? = nil) {
        self.status = status
        self.command = command
        self.subcommand = subcommand
    }

    /// The status byte.
    public var statusByte: UInt8 { status.rawValue }

    /// The status's name, e.g. `CTAP2_ERR_PIN_INVALID`.
    public var name: String { status.name }

    public var description: String {
        "\(command.name)\(subcommand.map { " " + $0 } ?? ""): \(status)"
    }
}
