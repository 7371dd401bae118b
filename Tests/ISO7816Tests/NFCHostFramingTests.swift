import FIDOWire
import ISO7816
import Testing
import TestSupport

/// The one host-side framing (`FIDOWire.NFCHostFraming`) against the card's own front: command
/// chaining, `61xx` + GET RESPONSE, `9100` polling with its keepalive byte and its pauses, the
/// cancel; and, against scripted answers, each way it stops early.
@Suite("NFCHostFraming: the host side of the NFC binding, against CardFront")
struct NFCHostFramingTests {
    /// APDUs sent, for a test to look at.
    final class Log {
        var sent: [[UInt8]] = []
        var pauses: [Duration] = []
    }

    static func send(_ front: FrontUnderTest, _ wire: Log) -> ([UInt8]) -> [UInt8] {
        { apdu in
            wire.sent.append(apdu)
            return front.transmit(apdu)
        }
    }

    @Test("a message of every size travels in 255-byte pieces (CLA 90 but the last) and its answer comes back whole through 61xx",
          arguments: [1, 255, 256, 600, 1200])
    func chaining(size: Int) {
        let applet = FakeApplet()
        applet.ctapResponder = { request in [0x00] + request + request }
        let front = Wire.selectedFront(applet)
        let wire = Log()
        let message: [UInt8] = [0x01] + (1..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let framing = NFCHostFraming()
        let answer = framing.run(framing.message(message), transmit: Self.send(front, wire))
        #expect(answer == NFCHostFraming.Answer(data: [0x00] + message + message, statusWord: 0x9000,
                                                pieces: Array(repeating: 0x9000, count: (size - 1) / 255)))
        #expect(applet.ctapRequests == [message])
        let pieces = (size + 254) / 255
        #expect(wire.sent.prefix(pieces - 1).allSatisfy { $0[0] == 0x90 && $0[4] == 0xFF })
        #expect(wire.sent[pieces - 1][0] == 0x80 && wire.sent[pieces - 1].last == 0x00)
        #expect(wire.sent.dropFirst(pieces).allSatisfy { $0 == [0x00, 0xC0, 0x00, 0x00, $0[4]] }, "GET RESPONSEs, class 00")
        #expect(wire.sent.count == pieces + (2 * size + 1 + 255) / 256 - 1)
    }

    @Test("9100: each keepalive byte to the handler, polls after pauses from the first doubling to the longest, then the answer")
    func polling() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 4))
        let wire = Log()
        var framing = NFCHostFraming()
        framing.firstPollPause = .milliseconds(2)
        framing.longestPollPause = .milliseconds(5)
        var keepalives: [UInt8] = []
        let answer = framing.run(framing.message([0x04]), transmit: Self.send(front, wire), sleep: { wire.pauses.append($0) },
                                 keepalive: { keepalives.append($0); return .keepPolling })
        #expect(answer == NFCHostFraming.Answer(data: [0x00, 0x04], statusWord: 0x9000))
        #expect(keepalives == [0x01, 0x01, 0x01, 0x01, 0x01])
        #expect(wire.pauses == [.milliseconds(2), .milliseconds(4), .milliseconds(5), .milliseconds(5), .milliseconds(5)])
        #expect(wire.sent.dropFirst() == Array(repeating: NFCHostFraming.pollAPDU, count: 5)[...])
    }

    @Test("the keepalive handler cancels: NFCCTAP_GETRESPONSE with P1 11, the card's answer (CTAP2_ERR_KEEPALIVE_CANCEL), the request never run")
    func cancel() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 4))
        let wire = Log()
        let framing = NFCHostFraming()
        var seen = 0
        let answer = framing.run(framing.message([0x04]), transmit: Self.send(front, wire),
                                 keepalive: { _ in seen += 1; return seen == 2 ? .cancel : .keepPolling })
        #expect(answer == NFCHostFraming.Answer(data: [CTAPStatus.keepaliveCancel.rawValue], statusWord: 0x9000, stop: .cancelled))
        #expect(wire.sent.last == NFCHostFraming.cancelAPDU)
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test("a card that answers 9100 past the polling limit: the framing stops with the last 9100")
    func pollingLimit() {
        var framing = NFCHostFraming()
        framing.pollingLimit = .zero
        let answer = framing.run(framing.message([0x04]), transmit: { _ in [0x02, 0x91, 0x00] }, sleep: { _ in })
        #expect(answer == NFCHostFraming.Answer(data: [0x02], statusWord: 0x9100, stop: .stillProcessing(.zero)))
    }

    @Test("the async driver gives what the synchronous one gives")
    func async() async {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x33, count: 700) }
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 2))
        let framing = NFCHostFraming()
        let answer = await framing.run(framing.message([0x01] + Array(repeating: 9, count: 600)),
                                       transmit: { apdu async in front.transmit(apdu) }, sleep: { _ async in })
        #expect(answer == NFCHostFraming.Answer(data: Array(repeating: 0x33, count: 700), statusWord: 0x9000, pieces: [0x9000, 0x9000]))
    }

    @Test("each way the framing stops early: a short answer, 61xx forever, a refused piece, 6Cxx twice or for no APDU")
    func stops() {
        let framing = NFCHostFraming()
        #expect(framing.run(framing.exchange([0x00, 0xB0, 0x00, 0x00, 0x00]), transmit: { _ in [0x90] })
                == NFCHostFraming.Answer(data: [0x90], statusWord: nil, stop: .tooShort(command: [0x00, 0xB0, 0x00, 0x00, 0x00], response: [0x90])))
        var limited = NFCHostFraming()
        limited.maximumGetResponses = 3
        var count = 0
        let endless = limited.run(limited.exchange([0x00, 0xB0, 0x00, 0x00, 0x00]), transmit: { _ in count += 1; return [0x07, 0x61, 0x01] })
        #expect(endless == NFCHostFraming.Answer(data: [0x07, 0x07, 0x07, 0x07], statusWord: 0x6101, stop: .tooManyGetResponses(3)))
        #expect(count == 4, "the command and 3 GET RESPONSEs")
        let refused = framing.run(framing.message([UInt8](repeating: 1, count: 600)),
                                  transmit: { apdu in apdu[0] == 0x90 ? [0x68, 0x84] : [0x00, 0x90, 0x00] })
        #expect(refused == NFCHostFraming.Answer(data: [], statusWord: 0x6884, pieces: [0x6884], stop: .pieceRefused))
        var correcting = NFCHostFraming()
        correcting.correctsWrongLength = true
        #expect(correcting.run(correcting.exchange([0x00, 0xCA, 0x01, 0x02, 0x00]), transmit: { _ in [0x6C, 0x08] })
                == NFCHostFraming.Answer(data: [], statusWord: 0x6C08, stop: .wrongLengthRepeated(command: [0x00, 0xCA, 0x01, 0x02, 0x08])))
        #expect(correcting.run(correcting.exchange([0x80, 0x10, 0x00, 0x00, 0x05, 0x01]), transmit: { _ in [0x6C, 0x08] })
                == NFCHostFraming.Answer(data: [], statusWord: 0x6C08, stop: .cannotCorrectLength(command: [0x80, 0x10, 0x00, 0x00, 0x05, 0x01])))
        #expect(framing.run(framing.exchange([0x00, 0xCA, 0x01, 0x02, 0x00]), transmit: { _ in [0x6C, 0x08] })
                == NFCHostFraming.Answer(data: [], statusWord: 0x6C08), "without correctsWrongLength, 6Cxx is an answer")
    }
}
