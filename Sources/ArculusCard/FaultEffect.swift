import CTAP2
import ISO7816
import FIDOWire

/// What an injected fault does to the command it hits.
public enum FaultEffect: Hashable, Sendable, CustomStringConvertible {
    /// A CTAP2 command answers this status byte (e.g. `0x2E` CTAP2_ERR_NO_CREDENTIALS) without
    /// running. CTAP2 commands only.
    case ctapError(UInt8)
    /// The command answers this ISO 7816 status word, with no data, without running (for a
    /// CTAP2 message the NFCCTAP_MSG gets it, before any `9100`).
    case statusWord(StatusWord)
    /// The signatures the command makes are wrong (a well-formed DER signature with one bit of
    /// `s` flipped): an assertion, a packed attestation statement, a U2F response.
    case bogusSignature
    /// Authenticator data carries these UP/UV flag values (nil leaves a flag as the card set
    /// it). The card signs what it sends, so the signature verifies; a relying party must
    /// notice the flags. For U2F AUTHENTICATE only the user-present byte follows `userPresent`.
    case flags(userPresent: Bool?, userVerified: Bool?)
    /// The card leaves the NFC field in the middle of the command: it runs (what it writes is
    /// kept, as a card that finished writing just as it left) and the response is lost. On a
    /// reader the card vanishes and is tapped again after `away`; in process, `transmit` answers
    /// nothing until the host power-cycles the card (see ``CardRemovedError``).
    case leaveField(away: Duration)
    /// The command's next write to the card's memory fails as a torn write does: nothing of it
    /// is kept, and the command answers CTAP1_ERR_OTHER (U2F AUTHENTICATE: `6A80`).
    case failNextWrite
    /// The user declines the test of user presence: makeCredential, getAssertion (with up),
    /// selection and reset answer CTAP2_ERR_OPERATION_DENIED, U2F answers `6985`.
    case declinePresence
    /// The command answers this much later (it runs as usual): a slower card for one command,
    /// on top of any ``TimingProfile``.
    case delay(Duration)

    /// `leaveField` with the card away for one second (pcscd notices absences of 0.5 s or more).
    public static let leaveField = FaultEffect.leaveField(away: .seconds(1))

    /// The effect's name in the control protocol and on the command line.
    public var name: String {
        switch self {
        case .ctapError: "ctap-error"
        case .statusWord: "status-word"
        case .bogusSignature: "bogus-signature"
        case .flags: "flags"
        case .leaveField: "leave-field"
        case .failNextWrite: "fail-next-write"
        case .declinePresence: "decline-presence"
        case .delay: "delay"
        }
    }

    /// Whether a fault with this effect is one-shot unless told otherwise: the events (leaving
    /// the field, failing the next write) are; the behaviours stay until cleared.
    public var isOneShotByDefault: Bool {
        switch self {
        case .leaveField, .failNextWrite: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .ctapError(let byte): "answer \(FaultEffect.statusName(byte))"
        case .statusWord(let word): "answer status word \(word)" + (word.meaning.map { " (\($0))" } ?? "")
        case .bogusSignature: "bogus signature"
        case .flags(let up, let uv):
            "flags " + [up.map { "UP=\($0 ? 1 : 0)" }, uv.map { "UV=\($0 ? 1 : 0)" }].compactMap { $0 }.joined(separator: " ")
        case .leaveField(let away): "leave the field (back after \(away))"
        case .failNextWrite: "fail the next write"
        case .declinePresence: "decline user presence"
        case .delay(let extra): "answer \(extra) later"
        }
    }

    /// A CTAP status byte with its specification name, e.g. `CTAP2_ERR_NO_CREDENTIALS (0x2E)`.
    static func statusName(_ byte: UInt8) -> String {
        let status = CTAPStatus(rawValue: byte)
        return status.isDefined ? status.description : "status \(status.name)"
    }

    /// Where inside a command the card model acts this effect out (``ArmedFaults``); nil for the
    /// effects that act at the card's boundary (a torn write, leaving the field, a delay).
    var armedPoint: ArmedFaults.Point? {
        switch self {
        case .ctapError(let byte): .ctapStatus(byte)
        case .statusWord(let word): .statusWord(word)
        case .bogusSignature: .bogusSignature
        case .flags(let up, let uv): .flags(userPresent: up, userVerified: uv)
        case .declinePresence: .declinePresence
        case .leaveField, .failNextWrite, .delay: nil
        }
    }

    /// Why this effect can never happen in `command`, or nil when it can.
    func impossibility(in command: CardCommand) -> String? {
        let signs: Set<CardCommand> = [.ctap(.makeCredential), .ctap(.getAssertion), .ctap(.getNextAssertion),
                                       .u2fRegister, .u2fAuthenticate]
        let hasFlags: Set<CardCommand> = [.ctap(.makeCredential), .ctap(.getAssertion), .ctap(.getNextAssertion),
                                          .u2fAuthenticate]
        let asksPresence: Set<CardCommand> = [.ctap(.makeCredential), .ctap(.getAssertion), .ctap(.reset),
                                              .ctap(.selection), .u2fRegister, .u2fAuthenticate]
        let writes: Set<CardCommand> = [.ctap(.makeCredential), .ctap(.getAssertion), .ctap(.getNextAssertion),
                                        .ctap(.clientPIN), .ctap(.reset), .ctap(.credentialManagement),
                                        .u2fAuthenticate]
        if case .apdu(let bytes) = command { return impossibility(inAPDU: bytes) }
        switch self {
        case .ctapError(let byte):
            if byte == 0 { return "0x00 is CTAP2_OK, not an error" }
            return command.isCTAP ? nil : "\(command) is not a CTAP2 command; use a status word"
        case .statusWord, .leaveField, .delay:
            return nil
        case .bogusSignature:
            return signs.contains(command) ? nil : "\(command) makes no signature"
        case .flags(let up, let uv):
            if up == nil && uv == nil { return "no flag to change (give up and/or uv)" }
            return hasFlags.contains(command) ? nil : "\(command) sends no authenticator data"
        case .failNextWrite:
            return writes.contains(command) ? nil : "\(command) never writes to the card's memory"
        case .declinePresence:
            return asksPresence.contains(command) ? nil : "\(command) never tests user presence"
        }
    }

    /// A fault on one exact APDU answers instead of it: a status word, or a CTAP status when the
    /// APDU is an NFCCTAP_MSG.
    private func impossibility(inAPDU bytes: [UInt8]) -> String? {
        switch self {
        case .statusWord: return nil
        case .ctapError(let byte):
            if byte == 0 { return "0x00 is CTAP2_OK, not an error" }
            let isMessage = bytes.count >= 4 && bytes[0] & ~0x10 == 0x80 && bytes[1] == FIDOInstruction.nfcctapMessage.rawValue
            return isMessage ? nil : "APDU \(Hex.string(bytes)) is not an NFCCTAP_MSG; use a status word"
        default:
            return "a fault on one exact APDU answers it with a status word or a CTAP status, not \(name)"
        }
    }
}
