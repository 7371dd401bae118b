import FIDOWire
/// Which commands a fault applies to: every command, or one.
///
/// "Every command" means the commands a card runs — SELECT, each CTAP2 message, U2F REGISTER
/// and AUTHENTICATE — not the pieces that carry them (chained APDUs, GET RESPONSE,
/// NFCCTAP_GETRESPONSE polls), not U2F VERSION and not one exact APDU (``apdu(_:)``, which only a
/// fault scoped to it matches).
public enum FaultScope: Hashable, Sendable, CustomStringConvertible {
    /// Any command.
    case any
    /// One command.
    case command(CardCommand)

    /// One CTAP2 command.
    public static func ctap(_ command: CTAPCommand) -> FaultScope { .command(.ctap(command.rawValue)) }
    /// U2F REGISTER.
    public static let u2fRegister = FaultScope.command(.u2fRegister)
    /// U2F AUTHENTICATE.
    public static let u2fAuthenticate = FaultScope.command(.u2fAuthenticate)
    /// SELECT of the FIDO applet.
    public static let select = FaultScope.command(.select)
    /// One exact command APDU, before the card front reads it: a malformed APDU, one SELECT
    /// variant, one CTAP request in one NFCCTAP_MSG.
    public static func apdu(_ bytes: [UInt8]) -> FaultScope { .command(.apdu(bytes)) }

    /// `any`, or a command name as ``CardCommand/init(name:)`` reads it.
    public init?(name: String) {
        if name.lowercased() == "any" {
            self = .any
        } else if let command = CardCommand(name: name) {
            self = .command(command)
        } else {
            return nil
        }
    }

    /// The name ``init(name:)`` reads back.
    public var name: String {
        switch self {
        case .any: "any"
        case .command(let command): command.name
        }
    }

    public var description: String {
        switch self {
        case .any: "any command"
        case .command(let command): command.description
        }
    }

    /// Whether a fault with this scope applies to `command`.
    public func matches(_ command: CardCommand) -> Bool {
        command.isInScope(self.command)
    }

    /// The one command of this scope; nil for `any`.
    var command: CardCommand? {
        if case .command(let command) = self { command } else { nil }
    }
}
