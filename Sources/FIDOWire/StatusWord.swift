/// The two trailing bytes SW1 SW2 of a response APDU (ISO/IEC 7816-4 §5.1.3, §5.6).
///
/// A struct with named constants rather than an enum because one family, `61xx`
/// ("xx bytes still available"), carries a count in SW2, and because an applet may
/// answer any status word the U2F or CTAP specifications name.
public struct StatusWord: RawRepresentable, Hashable, Sendable {
    /// SW1 in the high byte, SW2 in the low byte.
    public var rawValue: UInt16

    /// Wraps a raw status word.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Builds a status word from its two bytes.
    public init(sw1: UInt8, sw2: UInt8) {
        self.rawValue = UInt16(sw1) << 8 | UInt16(sw2)
    }

    /// The first status byte.
    public var sw1: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 8) }

    /// The second status byte.
    public var sw2: UInt8 { UInt8(truncatingIfNeeded: rawValue) }

    /// The status word as it travels: SW1 then SW2.
    public var bytes: [UInt8] { [sw1, sw2] }

    /// `9000`: normal processing, no further qualification.
    public static let success = StatusWord(rawValue: 0x9000)

    /// `9100`: NFCCTAP "status update": the authenticator is still processing and the
    /// client polls with NFCCTAP_GETRESPONSE (CTAP 2.1 §11.3.7). The data field holds the
    /// keepalive status byte.
    public static let ctapStillProcessing = StatusWord(rawValue: 0x9100)

    /// `6700`: wrong length (Lc/Le inconsistent with the command, or a malformed APDU).
    public static let wrongLength = StatusWord(rawValue: 0x6700)

    /// `6883`: last command of the chain expected (a different command arrived while a
    /// command chain was open).
    public static let lastCommandOfChainExpected = StatusWord(rawValue: 0x6883)

    /// `6985`: conditions of use not satisfied. U2F also uses it for "test of user
    /// presence required".
    public static let conditionsNotSatisfied = StatusWord(rawValue: 0x6985)

    /// `6A80`: incorrect parameters in the data field. U2F also uses it for "bad key handle".
    public static let wrongData = StatusWord(rawValue: 0x6A80)

    /// `6A82`: file or application not found.
    public static let fileNotFound = StatusWord(rawValue: 0x6A82)

    /// `6A86`: incorrect parameters P1-P2.
    public static let incorrectP1P2 = StatusWord(rawValue: 0x6A86)

    /// `6D00`: instruction code not supported or invalid.
    public static let insNotSupported = StatusWord(rawValue: 0x6D00)

    /// `6E00`: class not supported.
    public static let claNotSupported = StatusWord(rawValue: 0x6E00)

    /// `6F00`: no precise diagnosis.
    public static let noPreciseDiagnosis = StatusWord(rawValue: 0x6F00)

    /// `61xx`: normal processing, `remaining` more response bytes wait for GET RESPONSE.
    /// SW2 is the count when it is below 256, else `00` (meaning "256 or more").
    public static func bytesRemaining(_ remaining: Int) -> StatusWord {
        StatusWord(sw1: 0x61, sw2: remaining > 0 && remaining < 256 ? UInt8(remaining) : 0x00)
    }

    /// Whether this is a `61xx` word.
    public var isBytesRemaining: Bool { sw1 == 0x61 }

    /// What the word means in a few words (for traces), or `nil` for a word not named here.
    public var meaning: String? {
        if isBytesRemaining { return sw2 == 0 ? "256 or more bytes remaining" : "\(sw2) bytes remaining" }
        switch rawValue {
        case 0x9000: return "success"
        case 0x9100: return "still processing"
        case 0x6700: return "wrong length"
        case 0x6883: return "last command of chain expected"
        case 0x6985: return "conditions of use not satisfied"
        case 0x6A80: return "wrong data"
        case 0x6A82: return "file or application not found"
        case 0x6A86: return "incorrect P1-P2"
        case 0x6D00: return "instruction not supported"
        case 0x6E00: return "class not supported"
        case 0x6F00: return "no precise diagnosis"
        default: return nil
        }
    }
}

extension StatusWord: CustomStringConvertible {
    /// Four upper-case hex digits, as status words are usually written.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
