import FIDOWire

/// The ISO 7816-4 response handling a PC/SC client does itself, above `SCardTransmit`
/// (ISO/IEC 7816-4 §5.1.3 and §5.6):
///
/// - `61xx` — more data waits: send GET RESPONSE `00 C0 00 00 xx` and append what it returns,
///   until the card answers anything else;
/// - `6Cxx` — wrong Le: send the same command again with Le = `xx`.
///
/// This is host-side code and knows nothing of the emulated card: it sees only bytes, like a
/// PC/SC application on a real reader.
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
        var data: [UInt8] = []
        var next = apdu
        var getResponses = 0
        var lengthCorrections = 0
        while true {
            let response = try transport.transmit(next)
            observe(next, response)
            guard response.count >= 2 else {
                throw ISO7816ExchangeError.responseTooShort(command: next, response: response)
            }
            let sw1 = response[response.count - 2]
            let sw2 = response[response.count - 1]
            if sw1 == 0x6C {
                // One correction is what the standard foresees; a card that asks again is broken.
                guard lengthCorrections == 0 else { throw ISO7816ExchangeError.wrongLengthRepeated(command: next) }
                guard let corrected = Self.settingLe(of: next, to: sw2 == 0 ? 256 : Int(sw2)) else {
                    throw ISO7816ExchangeError.cannotCorrectLength(command: next)
                }
                lengthCorrections += 1
                next = corrected
                continue
            }
            lengthCorrections = 0
            data += response.dropLast(2)
            if sw1 == 0x61 {
                getResponses += 1
                guard getResponses <= maximumGetResponses else {
                    throw ISO7816ExchangeError.tooManyGetResponses(maximumGetResponses)
                }
                next = [0x00, 0xC0, 0x00, 0x00, sw2]
                continue
            }
            return data + [sw1, sw2]
        }
    }

    /// `apdu` with its Le set to `le` (1...256), added for case 1/3 APDUs and replaced for
    /// case 2/4, short or extended (ISO/IEC 7816-4 §5.1); nil when `apdu` is not well formed.
    public static func settingLe(of apdu: [UInt8], to le: Int) -> [UInt8]? {
        guard apdu.count >= 4, (1...256).contains(le) else { return nil }
        let header = Array(apdu.prefix(4))
        let body = apdu.dropFirst(4)
        let shortLe = UInt8(truncatingIfNeeded: le)  // 256 is encoded as 00
        let extendedLe: [UInt8] = [UInt8(le >> 8), UInt8(truncatingIfNeeded: le)]
        guard let first = body.first else { return header + [shortLe] }  // case 1
        if body.count == 1 { return header + [shortLe] }  // case 2S
        if first != 0 {
            let lc = Int(first)
            let withoutLe = Array(apdu.prefix(5 + lc))
            switch body.count {
            case 1 + lc: return withoutLe + [shortLe]  // case 3S
            case 2 + lc: return withoutLe + [shortLe]  // case 4S
            default: return nil
            }
        }
        if body.count == 3 { return header + [0x00] + extendedLe }  // case 2E
        guard body.count > 3 else { return nil }  // 00 then one byte: neither short nor extended
        let lc = Int(body[body.startIndex + 1]) << 8 | Int(body[body.startIndex + 2])
        guard lc > 0 else { return nil }
        let withoutLe = Array(apdu.prefix(7 + lc))
        switch body.count {
        case 3 + lc, 5 + lc: return withoutLe + extendedLe  // case 3E, 4E
        default: return nil
        }
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
