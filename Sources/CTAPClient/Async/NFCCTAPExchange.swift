import FIDOWire

/// The framing of one exchange with a card over the FIDO NFC binding (CTAP 2.1 §11.3) as a value:
/// given each answer, which APDU to send next, how long to wait first, or what the exchange
/// ended with. It does no I/O, so any driver (one that blocks, one that awaits) sends what it
/// says; ``AsyncNFCCTAPChannel`` is one.
///
/// - A plain command (``init(command:maximumGetResponses:)``): `61xx` is followed with GET
///   RESPONSE `00 C0 00 00 xx` until another status word, and the exchange ends with all the
///   data and that word.
/// - A CTAP message (``init(message:pieceSize:maximumGetResponses:maximumPolling:)``): the
///   NFCCTAP_MSG pieces of ``NFCFraming`` (command chaining, each piece but the last answered
///   `9000`), each answer's `61xx` followed, `9100` ("still processing") polled with
///   NFCCTAP_GETRESPONSE `80 11 00 00 00` (pauses from 5 ms doubling to 100 ms, for at most
///   `maximumPolling`); the exchange ends with the CTAP response on `9000`.
public struct NFCCTAPExchange {
    /// What the driver does next.
    public enum Step: Equatable, Sendable {
        /// Send this APDU and hand its answer to ``next(after:at:)``.
        case send([UInt8])
        /// Wait this long, then send the APDU.
        case pause(Duration, then: [UInt8])
        /// The exchange is over: the data and the last status word (for a CTAP message, `9000`
        /// and the response: status byte + CBOR).
        case done(data: [UInt8], statusWord: UInt16)
    }

    private enum Phase {
        /// A plain command: its answer ends the exchange.
        case command
        /// CTAP message pieces still to send after the one under way.
        case chaining(ArraySlice<[UInt8]>)
        /// The last piece's answer is awaited.
        case final
        /// `9100` since `start`; the next pause.
        case polling(since: ContinuousClock.Instant, pause: Duration)
    }

    /// The first APDU to send.
    public let first: [UInt8]
    private var phase: Phase
    private var data: [UInt8] = []
    private var getResponses = 0
    private let maximumGetResponses: Int
    private let maximumPolling: Duration

    /// One command APDU, its `61xx` answers followed.
    public init(command: [UInt8], maximumGetResponses: Int = 512) {
        first = command
        phase = .command
        self.maximumGetResponses = maximumGetResponses
        maximumPolling = .zero
    }

    /// One CTAP message (command byte + CBOR parameters) in NFCCTAP_MSG.
    public init(message: [UInt8], pieceSize: Int = 255, maximumGetResponses: Int = 512,
                maximumPolling: Duration = .seconds(30)) throws(CTAPClientError) {
        guard !message.isEmpty else { throw .invalidArgument("an empty CTAP message") }
        let apdus = NFCFraming.apdus(message, pieceSize: pieceSize)
        first = apdus[0]
        phase = apdus.count > 1 ? .chaining(apdus.dropFirst()) : .final
        self.maximumGetResponses = maximumGetResponses
        self.maximumPolling = maximumPolling
    }

    /// What to do after `answer` (data + SW1 SW2), which came at `now`.
    public mutating func next(after answer: [UInt8], at now: ContinuousClock.Instant) throws(CTAPClientError) -> Step {
        guard answer.count >= 2 else {
            throw .malformedResponse("an APDU answer of \(answer.count) byte(s) (\(Hex.string(answer))); it must end with SW1 SW2")
        }
        data += answer.dropLast(2)
        let (sw1, sw2) = (answer[answer.count - 2], answer[answer.count - 1])
        if sw1 == 0x61 {
            getResponses += 1
            guard getResponses <= maximumGetResponses else {
                throw .malformedResponse("the card still answered 61xx after \(maximumGetResponses) GET RESPONSEs")
            }
            return .send([0x00, 0xC0, 0x00, 0x00, sw2])
        }
        getResponses = 0
        let word = UInt16(sw1) << 8 | UInt16(sw2)
        let complete = data
        data = []
        switch phase {
        case .command:
            return .done(data: complete, statusWord: word)
        case .chaining(var pieces):
            guard word == 0x9000 else { throw .unexpectedStatusWord(word, during: "a chained NFCCTAP_MSG piece") }
            let piece = pieces.removeFirst()
            phase = pieces.isEmpty ? .final : .chaining(pieces)
            return .send(piece)
        case .final, .polling:
            if word == 0x9100 { return try poll(at: now) }
            guard word == 0x9000 else { throw .unexpectedStatusWord(word, during: "NFCCTAP_MSG") }
            guard !complete.isEmpty else { throw .malformedResponse("a CTAP response without a status byte") }
            return .done(data: complete, statusWord: word)
        }
    }

    /// The next NFCCTAP_GETRESPONSE after a `9100`, or ``CTAPClientError/stillProcessing(afterSeconds:)``.
    private mutating func poll(at now: ContinuousClock.Instant) throws(CTAPClientError) -> Step {
        var (start, pause) = (now, Duration.milliseconds(5))
        if case .polling(let since, let next) = phase { (start, pause) = (since, next) }
        guard start.duration(to: now) <= maximumPolling else {
            let seconds = Double(maximumPolling.components.seconds) + Double(maximumPolling.components.attoseconds) / 1e18
            throw .stillProcessing(afterSeconds: seconds)
        }
        phase = .polling(since: start, pause: min(pause * 2, .milliseconds(100)))
        return .pause(pause, then: [0x80, 0x11, 0x00, 0x00, 0x00])
    }
}
