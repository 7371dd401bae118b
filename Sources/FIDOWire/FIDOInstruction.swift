/// The instructions the FIDO card front understands, with the class each belongs to.
///
/// Sources: ISO/IEC 7816-4 §11 (SELECT, GET RESPONSE), CTAP 2.1 §11.3 (NFCCTAP_MSG,
/// NFCCTAP_GETRESPONSE), FIDO U2F Raw Message Formats §4–§6 (REGISTER, AUTHENTICATE,
/// VERSION).
public enum FIDOInstruction: UInt8, CaseIterable, Sendable {
    /// U2F_REGISTER, class `00`.
    case u2fRegister = 0x01
    /// U2F_AUTHENTICATE, class `00`.
    case u2fAuthenticate = 0x02
    /// U2F_VERSION, class `00`.
    case u2fVersion = 0x03
    /// NFCCTAP_MSG, class `80`: CTAP command byte + CBOR.
    case nfcctapMessage = 0x10
    /// NFCCTAP_GETRESPONSE, class `80`: poll (P1 `00`) or cancel (P1 `11`).
    case nfcctapGetResponse = 0x11
    /// SELECT, class `00`.
    case select = 0xA4
    /// GET RESPONSE, class `00` or `80` (python-fido2 sends `00`, libfido2 `80` for CBOR).
    case getResponse = 0xC0

    /// The instruction a header names, or `nil` when INS is unknown in that class.
    ///
    /// - Parameters:
    ///   - commandClass: CLA without the chaining bit.
    ///   - ins: the INS byte.
    public init?(commandClass: UInt8, ins: UInt8) {
        guard let instruction = FIDOInstruction(rawValue: ins),
              commandClass == instruction.commandClass || (instruction == .getResponse && commandClass == 0x80) else { return nil }
        self = instruction
    }

    /// The class (CLA) the instruction is sent with: `80` for the NFCCTAP instructions, `00` for
    /// the others. GET RESPONSE comes with either, as its client's CTAP messages do.
    public var commandClass: UInt8 {
        switch self {
        case .nfcctapMessage, .nfcctapGetResponse: 0x80
        default: 0x00
        }
    }

    /// The name the specifications use.
    public var name: String {
        switch self {
        case .u2fRegister: "U2F_REGISTER"
        case .u2fAuthenticate: "U2F_AUTHENTICATE"
        case .u2fVersion: "U2F_VERSION"
        case .nfcctapMessage: "NFCCTAP_MSG"
        case .nfcctapGetResponse: "NFCCTAP_GETRESPONSE"
        case .select: "SELECT"
        case .getResponse: "GET RESPONSE"
        }
    }

    /// Whether the instruction belongs to the FIDO applet and so needs it selected first.
    public var needsSelectedApplet: Bool {
        switch self {
        case .select, .getResponse: false
        default: true
        }
    }
}
