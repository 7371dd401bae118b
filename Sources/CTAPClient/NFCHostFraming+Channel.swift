import FIDOWire

/// What the two channels (``NFCCTAPChannel``, ``AsyncNFCCTAPChannel``) share of the one framing:
/// their limits as an ``NFCHostFraming``, and an answer read as CTAPClient's result or error.
extension NFCHostFraming {
    /// The framing with a channel's limits.
    static func channel(pieceSize: Int, maximumGetResponses: Int, pollingLimit: Duration) -> NFCHostFraming {
        var framing = NFCHostFraming()
        framing.pieceSize = pieceSize
        framing.maximumGetResponses = maximumGetResponses
        framing.pollingLimit = pollingLimit
        return framing
    }
}

extension NFCHostFraming.Answer {
    /// The answer's last status word, or the error for why the framing stopped short of one.
    func statusWord(pollingLimit: Duration) throws(CTAPClientError) -> UInt16 {
        switch stop {
        case .tooShort(_, let response)?:
            throw .malformedResponse("an APDU answer of \(response.count) byte(s) (\(Hex.string(response))); it must end with SW1 SW2")
        case .tooManyGetResponses(let count)?:
            throw .malformedResponse("the card still answered 61xx after \(count) GET RESPONSEs")
        case .pieceRefused?:
            throw .unexpectedStatusWord(statusWord ?? 0, during: "a chained NFCCTAP_MSG piece")
        case .stillProcessing?:
            let (seconds, attoseconds) = pollingLimit.components
            throw .stillProcessing(afterSeconds: Double(seconds) + Double(attoseconds) / 1e18)
        case .cancelled?, .wrongLengthRepeated?, .cannotCorrectLength?:
            preconditionFailure("a channel neither cancels nor corrects Le: \(self)")
        case nil:
            guard let statusWord else { preconditionFailure("an answer without a status word or a stop") }
            return statusWord
        }
    }

    /// The CTAP response (status byte + CBOR) of an NFCCTAP_MSG exchange.
    func ctapResponse(pollingLimit: Duration) throws(CTAPClientError) -> [UInt8] {
        let word = try statusWord(pollingLimit: pollingLimit)
        guard word == 0x9000 else { throw .unexpectedStatusWord(word, during: "NFCCTAP_MSG") }
        guard !data.isEmpty else { throw .malformedResponse("a CTAP response without a status byte") }
        return data
    }
}
