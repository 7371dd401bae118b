import FIDOWire
/// Why a ``CTAPClient`` operation failed.
public enum CTAPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transport could not reach the card (``CardTransportError/cardRemoved(_:)`` when it
    /// left the field).
    case transport(CardTransportError)
    /// The card answered CTAP with an error status.
    case ctap(CTAPError)
    /// SELECT of the FIDO applet was refused with this status word: not a FIDO card.
    case appletNotFound(statusWord: UInt16)
    /// The FIDO applet answered SELECT with `U2F_V2`: it speaks U2F only, not CTAP2.
    case ctap2NotSupported(selectAnswer: String)
    /// An APDU was answered with a status word the NFC binding does not allow there.
    case unexpectedStatusWord(UInt16, during: String)
    /// The card kept answering `9100` ("still processing") past the polling limit.
    case stillProcessing(afterSeconds: Double)
    /// The card's answer is not what CTAP 2.1 says it must be.
    case malformedResponse(String)
    /// The card does not offer what the operation needs (e.g. credential management).
    case unsupported(String)
    /// An argument the platform must check before sending (e.g. a PIN shorter than the card's
    /// minimum) is not acceptable.
    case invalidArgument(String)

    /// Whether the error means the card left the field.
    public var isCardRemoved: Bool { if case .transport(.cardRemoved) = self { true } else { false } }

    /// The CTAP status, when the card answered one.
    public var ctapStatus: CTAPStatus? { if case .ctap(let error) = self { error.status } else { nil } }

    public var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .ctap(let error): "the card refused \(error)"
        case .appletNotFound(let word): "the card has no FIDO applet (SELECT A0000006472F0001 answered \(Hex.word(word)))"
        case .ctap2NotSupported(let answer):
            "the card's FIDO applet answered SELECT with '\(answer)': it speaks U2F only, not CTAP2"
        case .unexpectedStatusWord(let word, let during): "the card answered \(Hex.word(word)) during \(during)"
        case .stillProcessing(let seconds): "the card was still processing after \(seconds) s of polling"
        case .malformedResponse(let reason): "the card's answer is malformed: \(reason)"
        case .unsupported(let reason), .invalidArgument(let reason): reason
        }
    }
}
