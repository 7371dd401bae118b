import FIDOWire

/// The ISO 7816-4 response handling a PC/SC client does itself, above `SCardTransmit`
/// (ISO/IEC 7816-4 §5.1.3 and §5.6):
///
/// - `61xx` — more data waits: send GET RESPONSE `00 C0 00 00 xx` and append what it returns,
///   until the card answers anything else;
/// - `6Cxx` — wrong Le: send the same command again with Le = `xx`.
///
/// This is host-side code and knows nothing of the emulated card: it sees only bytes, like a
/// PC/SC application on a real reader. The rules are `FIDOWire`'s ``NFCHostFraming``, the one
/// host-side framing of the package.
public struct ISO7816Exchange<Transport: APDUTransport> {
    /// Where APDUs go.
    public let transport: Transport
    /// GET RESPONSEs allowed for one command before giving up (a card that keeps answering
    /// `61xx` forever would otherwise loop forever). 512 × 256 bytes covers any extended response.
    public var maximumGetResponses = 512

    /// An exchange over `transport`.
    public init(_ transport: Transport) {
        self.transport = transport
    }

    /// Sends `apdu`, follows `61xx` with GET RESPONSE and re-sends on `6Cxx` with the Le the
    /// card asked for; returns all the data in order followed by the final SW1 SW2.
    ///
    /// - Parameter observe: called with every APDU actually exchanged (the command, each GET
    ///   RESPONSE, each re-send) and its raw answer, in order; for traces and transcripts.
    /// - Throws: the transport's errors, or ``ISO7816ExchangeError``.
    public func transmitFollowingResponseChain(
        _ apdu: [UInt8], observe: (_ command: [UInt8], _ response: [UInt8]) -> Void = { _, _ in }
    ) throws -> [UInt8] {
        var framing = NFCHostFraming()
        framing.maximumGetResponses = maximumGetResponses
        framing.correctsWrongLength = true
        let answer = try framing.run(framing.exchange(apdu)) { command throws -> [UInt8] in
            let response = try transport.transmit(command)
            observe(command, response)
            return response
        }
        switch answer.stop {
        case .tooShort(let command, let response)?: throw ISO7816ExchangeError.responseTooShort(command: command, response: response)
        case .tooManyGetResponses(let limit)?: throw ISO7816ExchangeError.tooManyGetResponses(limit)
        case .wrongLengthRepeated(let command)?: throw ISO7816ExchangeError.wrongLengthRepeated(command: command)
        case .cannotCorrectLength(let command)?: throw ISO7816ExchangeError.cannotCorrectLength(command: command)
        case .pieceRefused?, .stillProcessing?, .cancelled?: preconditionFailure("one command APDU has no pieces and no polling")
        case nil: return answer.bytes
        }
    }

    /// `apdu` with its Le set to `le` (1...256), added for case 1/3 APDUs and replaced for
    /// case 2/4, short or extended (ISO/IEC 7816-4 §5.1); nil when `apdu` is not well formed.
    public static func settingLe(of apdu: [UInt8], to le: Int) -> [UInt8]? {
        NFCHostFraming.settingLe(of: apdu, to: le)
    }
}

/// A card answer ``ISO7816Exchange`` cannot follow.
public enum ISO7816ExchangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The answer had fewer than the 2 status bytes.
    case responseTooShort(command: [UInt8], response: [UInt8])
    /// The card kept answering `61xx` past the limit.
    case tooManyGetResponses(Int)
    /// The card answered `6Cxx` to a command whose Le it had already corrected.
    case wrongLengthRepeated(command: [UInt8])
    /// The card answered `6Cxx` to a command that is not a well-formed APDU.
    case cannotCorrectLength(command: [UInt8])

    /// What the card did, with the bytes in hex.
    public var description: String {
        switch self {
        case .responseTooShort(let command, let response):
            "the card answered \(Self.hex(command)) with \(response.count) byte(s) (\(Self.hex(response))); a response ends with SW1 SW2"
        case .tooManyGetResponses(let limit): "the card still answered 61xx after \(limit) GET RESPONSEs"
        case .wrongLengthRepeated(let command): "the card answered 6Cxx again to \(Self.hex(command)), whose Le it had already corrected"
        case .cannotCorrectLength(let command): "the card answered 6Cxx to \(Self.hex(command)), which is not an APDU whose Le can be set"
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "nothing" : Hex.string(bytes)
    }
}
