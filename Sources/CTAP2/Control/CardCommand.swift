import FIDOWire
/// A command of the card as a test double names it: what a fault is scoped to, and what a
/// ``FaultAct`` says a fault acted in.
///
/// CTAP2 commands are named by their command byte (CTAP 2.1 §6), so a byte this build does not
/// implement can be named too; U2F REGISTER and AUTHENTICATE (FIDO U2F Raw Message Formats §4,
/// §5) and the ISO 7816 SELECT of the FIDO applet are the other commands a card runs. One exact
/// command APDU can be named too (``apdu(_:)``), whatever it is — a malformed one included.
public enum CardCommand: Hashable, Sendable, CustomStringConvertible {
    /// A CTAP2 command: its command byte (see ``CTAPCommand``).
    case ctap(UInt8)
    /// U2F REGISTER.
    case u2fRegister
    /// U2F AUTHENTICATE.
    case u2fAuthenticate
    /// SELECT of the FIDO applet.
    case select
    /// One exact command APDU, as it arrives (before the card front reads it).
    case apdu([UInt8])

    /// A CTAP2 command by its ``CTAPCommand`` value.
    public static func ctap(_ command: CTAPCommand) -> CardCommand { .ctap(command.rawValue) }

    /// Parses a command name: a CTAP command as written in Swift (`getAssertion`), in the
    /// specification (`authenticatorGetAssertion`) or as its byte (`0x02`, `2`); `u2f-register`,
    /// `u2f-authenticate`, `select`, or `apdu:` and an APDU of at least 4 bytes in hex
    /// (`apdu:00990000`). Case-insensitive; nil for anything else.
    public init?(name: String) {
        let lowered = name.lowercased()
        if lowered.hasPrefix("apdu:") {
            guard let bytes = [UInt8](hex: String(lowered.dropFirst(5))), bytes.count >= 4 else { return nil }
            self = .apdu(bytes)
            return
        }
        switch lowered {
        case "u2f-register", "u2fregister", "register": self = .u2fRegister; return
        case "u2f-authenticate", "u2fauthenticate", "authenticate": self = .u2fAuthenticate; return
        case "select": self = .select; return
        default: break
        }
        if let byte = Hex.number(lowered) {
            self = .ctap(byte)
            return
        }
        guard let command = CTAPCommand(name: lowered) else { return nil }
        self = .ctap(command.rawValue)
    }

    /// The name ``init(name:)`` reads back: `getAssertion`, `0x42` for a byte without a name,
    /// `u2f-register`, `u2f-authenticate`, `select`, `apdu:00990000`.
    public var name: String {
        switch self {
        case .ctap(let byte):
            return CTAPCommand(rawValue: byte)?.identifier ?? "0x" + Hex.byte(byte)
        case .u2fRegister: return "u2f-register"
        case .u2fAuthenticate: return "u2f-authenticate"
        case .select: return "select"
        case .apdu(let bytes): return "apdu:" + Hex.string(bytes)
        }
    }

    /// The specification's name: `authenticatorGetAssertion`, `U2F_REGISTER`, `SELECT`.
    public var description: String {
        switch self {
        case .ctap(let byte): CTAPCommand.name(of: byte)
        case .u2fRegister: "U2F_REGISTER"
        case .u2fAuthenticate: "U2F_AUTHENTICATE"
        case .select: "SELECT"
        case .apdu(let bytes): "APDU \(Hex.string(bytes))"
        }
    }

    /// Whether this is a CTAP2 command (the only kind a CTAP status can answer).
    public var isCTAP: Bool {
        if case .ctap = self { return true }
        return false
    }

    /// Whether a fault scoped to `scope` applies to this command: one command applies to itself
    /// alone; nil, "any", to every command a card runs, never to one exact APDU (``apdu(_:)``).
    public func isInScope(_ scope: CardCommand?) -> Bool {
        if let scope { return scope == self }
        if case .apdu = self { return false }
        return true
    }
}
