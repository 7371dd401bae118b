import ISO7816
import Testing
import FIDOWire
import TestSupport

@Suite("CardFront: command and response chaining")
struct CardFrontChainingTests {
    static let clients: [(String, ChainingClient)] = [("python-fido2", .pythonFido2), ("libfido2", .libfido2)]
    static let sizes = [1, 239, 240, 241, 250, 251, 500, 1000, 1200]

    /// A CTAP request of `size` bytes travels in the client's pieces; the echoed response
    /// (one byte longer) comes back through 61xx / GET RESPONSE with the client's CLA.
    @Test(arguments: [0, 1], sizes)
    func chainingBothWays(clientIndex: Int, size: Int) {
        let (_, template) = Self.clients[clientIndex]
        var client = template
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let request: [UInt8] = [0x01] + (1..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request)
        #expect(response == ResponseAPDU(data: [0x00] + request, statusWord: .success))
        #expect(applet.ctapRequests == [request])
        let pieces = (size + client.pieceSize - 1) / client.pieceSize
        let gets = (size + 1 + 255) / 256 - 1
        #expect(client.apduCount == pieces + gets)
        #expect(client.statusWords.prefix(pieces - 1).allSatisfy { $0 == .success })
    }

    @Test func responseChainingStatusWords() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in (0..<1001).map { UInt8(truncatingIfNeeded: $0) } }
        let front = Wire.selectedFront(applet)
        var collected: [UInt8] = []
        var response = ResponseAPDU(parsing: front.transmit(hex("8010800001 04 00")))!
        #expect(response.statusWord == StatusWord(rawValue: 0x6100))
        collected += response.data
        response = ResponseAPDU(parsing: front.transmit(hex("00C0000000")))!
        #expect(response.statusWord == StatusWord(rawValue: 0x6100))
        collected += response.data
        response = ResponseAPDU(parsing: front.transmit(hex("80C0000000")))!
        #expect(response.statusWord == StatusWord(rawValue: 0x61E9))
        collected += response.data
        // A smaller Le than what is left: 16 bytes, the rest still waits.
        response = ResponseAPDU(parsing: front.transmit(hex("00C0000010")))!
        #expect(response.statusWord == StatusWord(rawValue: 0x61D9))
        collected += response.data
        response = ResponseAPDU(parsing: front.transmit(hex("00C00000D9")))!
        #expect(response.statusWord == .success)
        collected += response.data
        #expect(collected == (0..<1001).map { UInt8(truncatingIfNeeded: $0) })
        #expect(Wire.sw(front.transmit(hex("00C0000000"))) == .conditionsNotSatisfied)
    }

    @Test func getResponseLongerThanRemainderEndsWith9000() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x42, count: 300) }
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .bytesRemaining(44))
        let last = front.transmit(hex("80C0000000"))
        #expect(last == Array(repeating: 0x42, count: 44) + [0x90, 0x00])
    }

    @Test func anotherCommandDiscardsPendingResponse() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x42, count: 300) }
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .bytesRemaining(44))
        #expect(Wire.sw(front.transmit(hex("00030000"))) == .success)
        #expect(Wire.sw(front.transmit(hex("00C0000000"))) == .conditionsNotSatisfied)
        // A malformed APDU discards it too.
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .bytesRemaining(44))
        #expect(Wire.sw(front.transmit(hex("00C000"))) == .wrongLength)
        #expect(Wire.sw(front.transmit(hex("00C0000000"))) == .conditionsNotSatisfied)
    }

    @Test func extendedAPDUGetsWholeResponse() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x33, count: 3000) }
        applet.maxMessageSize = 4000
        let front = Wire.selectedFront(applet)
        let request: [UInt8] = [0x01] + Array(repeating: 0x44, count: 2999)
        // python-fido2's extended path: no Le at all.
        let noLe = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request)
        #expect(front.transmit(noLe.encoded) == Array(repeating: 0x33, count: 3000) + [0x90, 0x00])
        #expect(applet.ctapRequests.last == request)
        // Le 0000 = 65536.
        let le0 = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request, ne: 65536)
        #expect(Wire.sw(front.transmit(le0.encoded)) == .success)
        // An explicit extended Le of 0x0100 cuts at 256.
        let le256 = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request, ne: 256, extended: true)
        let cut = front.transmit(le256.encoded)
        #expect(cut.count == 258)
        #expect(Wire.sw(cut) == .bytesRemaining(2744))
    }

    @Test func extendedPiecesInAChain() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let first = CommandAPDU(cla: 0x90, ins: 0x10, p1: 0x00, p2: 0x00, data: [0x01] + Array(repeating: 1, count: 299))
        let last = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x00, p2: 0x00, data: Array(repeating: 2, count: 300), ne: 65536)
        #expect(front.transmit(first.encoded) == [0x90, 0x00])
        #expect(Wire.sw(front.transmit(last.encoded)) == .success)
        #expect(applet.ctapRequests == [first.data + last.data])
    }

    @Test func oversizeChainAnswersRequestTooLarge() {
        let applet = FakeApplet()
        applet.maxMessageSize = 1200
        let front = Wire.selectedFront(applet)
        for client in [ChainingClient.pythonFido2, .libfido2] {
            var client = client
            let response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: Array(repeating: 0x01, count: 1201))
            #expect(response == ResponseAPDU(data: [0x39], statusWord: .success))
            #expect(client.statusWords.dropLast().allSatisfy { $0 == .success })
        }
        #expect(applet.ctapRequests.isEmpty)
        // Exactly maxMsgSize is fine.
        var client = ChainingClient.pythonFido2
        let fits = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: Array(repeating: 0x01, count: 1200))
        #expect(fits.statusWord == .success && fits.data.count == 1201)
    }

    @Test func endlessChainIsBounded() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let piece: [UInt8] = [0x90, 0x10, 0x80, 0x00, 0xFA] + Array(repeating: 0x01, count: 250)
        for _ in 0..<10_000 {
            #expect(front.transmit(piece) == [0x90, 0x00])
        }
        #expect(front.transmit(hex("8010800001 01 00")) == [0x39, 0x90, 0x00])
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test func oversizeUnchainedMessageAnswersRequestTooLarge() {
        let applet = FakeApplet()
        applet.maxMessageSize = 1024
        let front = Wire.selectedFront(applet)
        let big = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x00, p2: 0x00, data: Array(repeating: 0x01, count: 1025), ne: 65536)
        #expect(front.transmit(big.encoded) == [0x39, 0x90, 0x00])
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test func oversizeU2FChainAnswersWrongLength() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        var client = ChainingClient.pythonFido2
        let response = client.send(front, cla: 0x00, ins: 0x01, p1: 0x03, p2: 0x00, data: Array(repeating: 0x01, count: 8000))
        #expect(response.statusWord == .wrongLength)
        #expect(applet.registers.isEmpty)
    }

    @Test func differentCommandInsideChainAnswers6883() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        #expect(front.transmit(hex("9010800002 0102")) == [0x90, 0x00])
        #expect(front.transmit(Wire.select) == [0x68, 0x83])
        // The chain is gone: the next final piece is a whole new command.
        #expect(front.transmit(hex("8010800001 04 00")) == [0x00, 0x04, 0x90, 0x00])
        #expect(applet.ctapRequests == [[0x04]])
    }

    struct Interloper: CustomTestStringConvertible, Sendable {
        let hex: String
        let why: String
        var testDescription: String { why }
    }

    static let interlopers: [Interloper] = [
        Interloper(hex: "8010000001 03", why: "same INS, other P1"),
        Interloper(hex: "8010800101 03", why: "same INS, other P2"),
        Interloper(hex: "0010800001 03", why: "other class"),
        Interloper(hex: "1010800001 03", why: "other class, chained"),
        Interloper(hex: "9011000001 03", why: "other INS, chained"),
        Interloper(hex: "00C0000000", why: "GET RESPONSE"),
        Interloper(hex: "8011000000", why: "NFCCTAP_GETRESPONSE"),
        Interloper(hex: "00030000", why: "U2F VERSION"),
        Interloper(hex: "FF000000", why: "bad CLA"),
    ]

    @Test(arguments: interlopers)
    func interleavedChainIsDiscarded(_ interloper: Interloper) {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        #expect(front.transmit(hex("9010800002 0102")) == [0x90, 0x00])
        #expect(Wire.sw(front.transmit(hex(interloper.hex))) == .lastCommandOfChainExpected)
        var client = ChainingClient.libfido2
        let response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: Array(repeating: 0x07, count: 700))
        #expect(response.data == [0x00] + Array(repeating: 0x07, count: 700))
        #expect(applet.ctapRequests.count == 1)
    }

    @Test func chainOfTheSameCommandNeedsItsHeaderChecked() {
        let front = FrontUnderTest(applet: FakeApplet())
        // Not selected: refused at the first piece, so no chain is opened.
        #expect(Wire.sw(front.transmit(hex("9010800001 01"))) == .conditionsNotSatisfied)
        _ = front.transmit(Wire.select)
        #expect(Wire.sw(front.transmit(hex("9010110001 01"))) == .incorrectP1P2)
        #expect(Wire.sw(front.transmit(hex("9010800001 01"))) == .success)
    }

    @Test func chainedU2FRegister() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let challenge = Array(repeating: UInt8(0xC1), count: 32)
        let application = Array(repeating: UInt8(0xA9), count: 32)
        var client = ChainingClient(pieceSize: 40, getResponseCLA: 0x00)
        let response = client.send(front, cla: 0x00, ins: 0x01, p1: 0x03, p2: 0x00, data: challenge + application)
        #expect(response == ResponseAPDU(data: Array(repeating: 0x05, count: 700), statusWord: .success))
        #expect(applet.registers.count == 1)
        #expect(applet.registers.first?.challenge == challenge)
        #expect(applet.registers.first?.application == application)
    }
}
