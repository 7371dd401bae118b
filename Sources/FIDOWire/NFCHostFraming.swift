/// The host side of the FIDO NFC binding (CTAP 2.1 §11.3) and of ISO/IEC 7816-4 response
/// chaining, written once for every host in the package — the CTAP client's channel, the probe,
/// the PC/SC client and the benchmark:
///
/// - command chaining: a CTAP message in NFCCTAP_MSG pieces of at most ``pieceSize`` bytes, CLA
///   `90` (the chaining bit) on all but the last, which ends with Le `00`; each piece must be
///   answered `9000`;
/// - `61xx`: GET RESPONSE `00 C0 00 00 xx` (class ``getResponseClass``) until the card answers
///   anything else, the data joined, at most ``maximumGetResponses`` times;
/// - `6Cxx` (with ``correctsWrongLength``): the same command again with the Le the card asked for;
/// - `9100`: the first data byte is the keepalive status; NFCCTAP_GETRESPONSE `80 11 00 00 00`
///   polls, with pauses from ``firstPollPause`` doubling to ``longestPollPause``, until another
///   answer or ``pollingLimit``; the keepalive handler may cancel (`80 11 11 00 00`).
///
/// It performs no I/O of its own. An exchange is a value (``NFCHostExchange``, in the manner of
/// swift-nio's state machines): it says what to send, when to pause and what came of it, and the
/// host does the sending — through ``run(_:transmit:sleep:keepalive:)``, synchronous or async, or
/// step by step. The ``Answer`` says what the card answered and, when the framing had to stop
/// early, why (``Stop``); each host turns that into its own errors or records.
///
/// It lives in `FIDOWire`, the wire vocabulary both sides may import, because the PC/SC client may
/// import nothing else of the package (it depends only on `CPCSCLite` and `FIDOWire`); it holds
/// bytes and rules of the binding, nothing of either side, so the card side and the host side
/// still meet only in bytes and the spec's constants. The card's own half is `ISO7816.CardFront`.
public struct NFCHostFraming: Sendable {
    /// The largest data field of one chained piece (a short APDU carries at most 255).
    public var pieceSize = 255
    /// The class of GET RESPONSE: `00` (python-fido2) or `80` (libfido2 for CBOR).
    public var getResponseClass: UInt8 = 0x00
    /// GET RESPONSEs sent for one answer before the framing stops (a card answering `61xx` forever).
    public var maximumGetResponses = 512
    /// Whether a `6Cxx` answer is corrected once by sending the command again with Le `xx`.
    public var correctsWrongLength = false
    /// How long to keep polling a card that answers `9100`.
    public var pollingLimit = Duration.seconds(30)
    /// The first pause between polls; each next one doubles, up to ``longestPollPause``.
    public var firstPollPause = Duration.milliseconds(5)
    public var longestPollPause = Duration.milliseconds(100)

    /// The framing with the defaults above.
    public init() {}

    /// What the card answered to one command APDU or one CTAP message.
    public struct Answer: Equatable, Sendable {
        /// The data: of every GET RESPONSE joined; when the card answered fewer than the two
        /// status bytes, what it did answer comes last.
        public var data: [UInt8]
        /// The last status word; nil when the last answer had fewer than two bytes.
        public var statusWord: UInt16?
        /// For a chained message: the status word of each piece before the last that was sent.
        public var pieces: [UInt16?] = []
        /// Why the framing stopped before the card's final answer, if it did.
        public var stop: Stop?

        public init(data: [UInt8], statusWord: UInt16?, pieces: [UInt16?] = [], stop: Stop? = nil) {
            self.data = data
            self.statusWord = statusWord
            self.pieces = pieces
            self.stop = stop
        }

        /// The data followed by SW1 SW2 (as a whole response travels).
        public var bytes: [UInt8] {
            guard let statusWord else { return data }
            var bytes = data
            bytes.append(UInt8(statusWord >> 8))
            bytes.append(UInt8(statusWord & 0xFF))
            return bytes
        }
    }

    /// Why the framing stopped early; ``Answer`` still holds what came.
    public enum Stop: Equatable, Sendable {
        /// `command` was answered with fewer than two bytes (`response`).
        case tooShort(command: [UInt8], response: [UInt8])
        /// The card still answered `61xx` after this many GET RESPONSEs.
        case tooManyGetResponses(Int)
        /// A chained piece was answered other than `9000` (its word is the answer's).
        case pieceRefused
        /// The card still answered `9100` when ``pollingLimit`` had passed.
        case stillProcessing(Duration)
        /// The keepalive handler cancelled: the answer is the card's to the cancel.
        case cancelled
        /// The card answered `6Cxx` again to `command`, whose Le it had already corrected.
        case wrongLengthRepeated(command: [UInt8])
        /// The card answered `6Cxx` to `command`, which is not an APDU whose Le can be set.
        case cannotCorrectLength(command: [UInt8])
    }

    /// What to do after a `9100` (the keepalive status given to the handler).
    public enum KeepaliveDecision: Sendable {
        case keepPolling
        case cancel
    }

    // MARK: - The APDUs

    /// The command APDUs that carry `message` (command byte + CBOR) in NFCCTAP_MSG.
    public static func messageAPDUs(_ message: [UInt8], p1: UInt8 = NFCBinding.messageSupportsGetResponse,
                                    pieceSize: Int = 255) -> [[UInt8]] {
        let ins = FIDOInstruction.nfcctapMessage.rawValue
        var apdus: [[UInt8]] = []
        var offset = 0
        while message.count - offset > pieceSize {
            let piece = message[offset..<(offset + pieceSize)]
            apdus.append([0x90, ins, p1, 0x00, UInt8(piece.count)] + piece)
            offset += pieceSize
        }
        let last = message[offset...]
        apdus.append([0x80, ins, p1, 0x00, UInt8(last.count)] + last + [0x00])
        return apdus
    }

    /// NFCCTAP_GETRESPONSE: the poll for a request answered `9100`.
    public static let pollAPDU: [UInt8] = [0x80, FIDOInstruction.nfcctapGetResponse.rawValue, 0x00, 0x00, 0x00]
    /// NFCCTAP_GETRESPONSE with P1 `11`: cancel the request answered `9100`.
    public static let cancelAPDU: [UInt8] = [0x80, FIDOInstruction.nfcctapGetResponse.rawValue, NFCBinding.getResponseCancel, 0x00, 0x00]

    /// GET RESPONSE for the `xx` of a `61xx`.
    public func getResponse(_ remaining: UInt8) -> [UInt8] {
        [getResponseClass, FIDOInstruction.getResponse.rawValue, 0x00, 0x00, remaining]
    }

    // MARK: - Exchanges

    /// `apdu`, with `61xx` followed by GET RESPONSE (and, with ``correctsWrongLength``, `6Cxx` by
    /// the corrected Le): an exchange to drive (``run(_:transmit:sleep:keepalive:)``).
    public func exchange(_ apdu: [UInt8]) -> NFCHostExchange {
        NFCHostExchange(framing: self, apdu: apdu)
    }

    /// The CTAP `message` (command byte + CBOR) in NFCCTAP_MSG with P1 `p1`: the chained pieces,
    /// each to be answered `9000`; the last with `61xx` followed; then, while the card answers
    /// `9100`, its keepalive status and a poll after a pause, or the cancel.
    public func message(_ message: [UInt8], p1: UInt8 = NFCBinding.messageSupportsGetResponse) -> NFCHostExchange {
        NFCHostExchange(framing: self, pieces: Self.messageAPDUs(message, p1: p1, pieceSize: pieceSize))
    }

    /// Drives `exchange` to its answer: each APDU through `transmit`, each pause through `sleep`,
    /// each keepalive status to `keepalive` (which may cancel the request).
    ///
    /// Inlinable so that each host gets it specialized for its transport and error type: the
    /// in-process card answers an APDU in about a microsecond, and an unspecialized generic loop
    /// around it would cost as much again.
    @inlinable
    public func run<Failure: Error>(_ exchange: consuming NFCHostExchange, transmit: ([UInt8]) throws(Failure) -> [UInt8],
                                    sleep: (Duration) -> Void = { _ in },
                                    keepalive: (UInt8) -> KeepaliveDecision = { _ in .keepPolling }) throws(Failure) -> Answer {
        let clock = ContinuousClock()
        while true {
            switch exchange.next(at: clock.now) {
            case .send(let apdu): exchange.receive(try transmit(apdu))
            case .keepalive(let status): if keepalive(status) == .cancel { exchange.cancel() }
            case .pause(let pause): sleep(pause)
            case .finished(let answer): return answer
            }
        }
    }

    /// ``run(_:transmit:sleep:keepalive:)`` for a host whose APDUs and pauses are asynchronous
    /// (inlinable for the same reason).
    @inlinable
    public func run<Failure: Error>(_ exchange: consuming NFCHostExchange, transmit: ([UInt8]) async throws(Failure) -> [UInt8],
                                    sleep: (Duration) async -> Void,
                                    keepalive: (UInt8) -> KeepaliveDecision = { _ in .keepPolling }) async throws(Failure) -> Answer {
        let clock = ContinuousClock()
        while true {
            switch exchange.next(at: clock.now) {
            case .send(let apdu): exchange.receive(try await transmit(apdu))
            case .keepalive(let status): if keepalive(status) == .cancel { exchange.cancel() }
            case .pause(let pause): await sleep(pause)
            case .finished(let answer): return answer
            }
        }
    }

    // MARK: - Le

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
