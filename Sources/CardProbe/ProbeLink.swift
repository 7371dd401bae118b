import CTAPClient
import FIDOWire
import POSIXSupport

/// One answer to a command APDU: its data and status word (nil when the card answered fewer
/// than the two status bytes; `data` then holds what it did answer).
struct APDUAnswer: Equatable {
    var data: [UInt8]
    var statusWord: UInt16?
}

/// A CTAP message's exchange: the answers to its chained pieces, then the final answer.
struct MessageAnswer: Equatable {
    /// The status words of the pieces before the last, when the message was chained.
    var pieces: [UInt16?] = []
    var answer: APDUAnswer
}

/// The probe's end of the wire: APDUs to any ``CardTransport``, as a PC/SC application sends
/// them, with the host-side framing of the FIDO NFC binding (CTAP 2.1 §11.3) that every host in
/// the package shares (`FIDOWire`'s ``NFCHostFraming``): command chaining, `61xx` + GET
/// RESPONSE, `9100` + NFCCTAP_GETRESPONSE. It counts what it sends and times what it is told to.
final class ProbeLink {
    let transport: any CardTransport
    /// Every APDU sent so far (pieces, GET RESPONSEs and polls included).
    private(set) var apdus = 0
    /// Every power cycle asked for so far.
    private(set) var powerCycles = 0
    /// Round-trip times by command kind.
    private(set) var samples: [String: [Duration]] = [:]
    private let clock = ContinuousClock()

    init(transport: any CardTransport) {
        self.transport = transport
    }

    /// One APDU as it is.
    func transmit(_ apdu: [UInt8]) throws(ProbeInterruption) -> APDUAnswer {
        let response = try send(apdu)
        guard response.count >= 2 else { return APDUAnswer(data: response, statusWord: nil) }
        let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        return APDUAnswer(data: Array(response.dropLast(2)), statusWord: sw)
    }

    /// One APDU, with `61xx` followed by GET RESPONSE (class `getResponseClass`).
    func following(_ apdu: [UInt8], getResponseClass: UInt8 = 0x00) throws(ProbeInterruption) -> APDUAnswer {
        var framing = Self.framing
        framing.getResponseClass = getResponseClass
        let answer = try framing.run(framing.exchange(apdu), transmit: send)
        return APDUAnswer(data: answer.data, statusWord: answer.statusWord)
    }

    /// A CTAP message (command byte + CBOR) in NFCCTAP_MSG: chained in pieces of `pieceSize`
    /// bytes (CLA `90` but for the last), P1 `p1`; `61xx` and `9100` followed.
    func message(_ message: [UInt8], p1: UInt8 = NFCBinding.messageSupportsGetResponse,
                 pieceSize: Int = 255) throws(ProbeInterruption) -> MessageAnswer {
        var framing = Self.framing
        framing.pieceSize = pieceSize
        let answer = try framing.run(framing.message(message, p1: p1), transmit: send, sleep: { POSIX.sleep(for: $0) })
        return MessageAnswer(pieces: answer.pieces, answer: APDUAnswer(data: answer.data, statusWord: answer.statusWord))
    }

    /// One APDU to the card, counted; an empty answer is a card that left.
    private func send(_ apdu: [UInt8]) throws(ProbeInterruption) -> [UInt8] {
        apdus += 1
        let response: [UInt8]
        do {
            response = try transport.transmit(apdu)
        } catch {
            throw ProbeInterruption(error)
        }
        guard !response.isEmpty else { throw ProbeInterruption(removed: true, reason: "the card answered nothing") }
        return response
    }

    /// Off the reader and back (the card forgets its volatile state).
    func powerCycle() throws(ProbeInterruption) {
        powerCycles += 1
        do {
            try transport.powerCycle()
        } catch {
            throw ProbeInterruption(error)
        }
    }

    /// Runs `body`, adding its wall time to the samples of `kind`.
    func timed<T>(_ kind: String, _ body: () throws(ProbeInterruption) -> T) throws(ProbeInterruption) -> T {
        let start = clock.now
        let result = try body()
        samples[kind, default: []].append(start.duration(to: clock.now))
        return result
    }

    /// The one host-side framing (`FIDOWire`'s), as the probe follows a card: at most 256 GET
    /// RESPONSEs for one answer (the answer is kept as the card left it), polls 2 ms apart at
    /// first, 50 ms at most, for 30 s (then the `9100` is the answer).
    static let framing: NFCHostFraming = {
        var framing = NFCHostFraming()
        framing.maximumGetResponses = 256
        framing.firstPollPause = .milliseconds(2)
        framing.longestPollPause = .milliseconds(50)
        framing.pollingLimit = .seconds(30)
        return framing
    }()
}
