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
/// them, with the host-side framing of the FIDO NFC binding (CTAP 2.1 §11.3) written here once:
/// command chaining, `61xx` + GET RESPONSE, `9100` + NFCCTAP_GETRESPONSE. It counts what it sends
/// and times what it is told to.
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
        apdus += 1
        let response: [UInt8]
        do {
            response = try transport.transmit(apdu)
        } catch {
            throw ProbeInterruption(error)
        }
        guard !response.isEmpty else { throw ProbeInterruption(removed: true, reason: "the card answered nothing") }
        guard response.count >= 2 else { return APDUAnswer(data: response, statusWord: nil) }
        let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        return APDUAnswer(data: Array(response.dropLast(2)), statusWord: sw)
    }

    /// One APDU, with `61xx` followed by GET RESPONSE (class `getResponseClass`).
    func following(_ apdu: [UInt8], getResponseClass: UInt8 = 0x00) throws(ProbeInterruption) -> APDUAnswer {
        var answer = try transmit(apdu)
        var rounds = 0
        while let sw = answer.statusWord, sw >> 8 == 0x61, rounds < Self.maximumGetResponses {
            rounds += 1
            let next = try transmit([getResponseClass, FIDOInstruction.getResponse.rawValue, 0x00, 0x00, UInt8(sw & 0xFF)])
            answer = APDUAnswer(data: answer.data + next.data, statusWord: next.statusWord)
        }
        return answer
    }

    /// A CTAP message (command byte + CBOR) in NFCCTAP_MSG: chained in pieces of `pieceSize`
    /// bytes (CLA `90` but for the last), P1 `p1`; `61xx` and `9100` followed.
    func message(_ message: [UInt8], p1: UInt8 = NFCBinding.messageSupportsGetResponse,
                 pieceSize: Int = 255) throws(ProbeInterruption) -> MessageAnswer {
        let apdus = NFCFraming.apdus(message, p1: p1, pieceSize: pieceSize)
        var pieces: [UInt16?] = []
        for piece in apdus.dropLast() {
            let answer = try transmit(piece)
            pieces.append(answer.statusWord)
            guard answer.statusWord == StatusWord.success.rawValue else { return MessageAnswer(pieces: pieces, answer: answer) }
        }
        var answer = try following(apdus[apdus.count - 1])
        let start = clock.now
        var pause = Duration.milliseconds(2)
        while answer.statusWord == StatusWord.ctapStillProcessing.rawValue, start.duration(to: clock.now) < .seconds(30) {
            POSIX.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
            answer = try following([0x80, FIDOInstruction.nfcctapGetResponse.rawValue, 0x00, 0x00, 0x00])
        }
        return MessageAnswer(pieces: pieces, answer: answer)
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

    /// GET RESPONSEs followed for one answer before giving up on a card that answers `61xx` forever.
    static let maximumGetResponses = 256
}
