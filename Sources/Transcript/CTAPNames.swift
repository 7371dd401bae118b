import CBOR
import FIDOWire

/// Names of CTAP requests for reports (and the card page's trace), built on the wire vocabulary.
public enum CTAPNames {
    /// The command's name, with the subcommand for commands that have them when the request
    /// decodes, e.g. `authenticatorClientPIN (getPinToken)`.
    public static func commandName(_ request: [UInt8]) -> String {
        guard let byte = request.first else { return "(empty CTAP request)" }
        guard let command = CTAPCommand(rawValue: byte) else { return CTAPCommand.name(of: byte) }
        guard let key = command.subcommandKey, request.count > 1,
              let map = (try? CBORDecoder.decode(request.dropFirst()))?.mapValue,
              let subcommand = map[int: key]?.intValue else {
            return command.name
        }
        return "\(command.name) (\(command.subcommandName(subcommand) ?? "subcommand \(subcommand)"))"
    }

    /// The name of a CTAP status byte, e.g. `CTAP2_ERR_PIN_INVALID`.
    public static func statusName(_ byte: UInt8) -> String { CTAPStatus(rawValue: byte).name }

    /// The name of a U2F AUTHENTICATE control byte (P1), e.g. `check-only`.
    public static func u2fControlName(_ p1: UInt8) -> String? { U2FControl(rawValue: p1)?.description }
}
