import ISO7816
import Testing
import FIDOWire
import TestSupport

@Suite("CardFront: U2F (CTAP1) framing")
struct CardFrontU2FTests {
    static let challenge = Array(repeating: UInt8(0xC1), count: 32)
    static let application = Array(repeating: UInt8(0xA9), count: 32)

    @Test func registerThroughShortAPDUsNeedsGetResponse() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        var client = ChainingClient.pythonFido2
        let response = client.send(front, cla: 0x00, ins: 0x01, p1: 0x03, p2: 0x00, data: Self.challenge + Self.application)
        #expect(response == ResponseAPDU(data: Array(repeating: 0x05, count: 700), statusWord: .success))
        #expect(client.statusWords == [StatusWord(rawValue: 0x6100), .bytesRemaining(188), .success])
        #expect(applet.registers.first?.challenge == Self.challenge)
        #expect(applet.registers.first?.application == Self.application)
    }

    @Test func registerInU2FRawExtendedEncoding() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let apdu = CommandAPDU(cla: 0x00, ins: 0x01, p1: 0x03, p2: 0x00, data: Self.challenge + Self.application, ne: 65536, extended: true)
        #expect(front.transmit(apdu.encoded) == Array(repeating: 0x05, count: 700) + [0x90, 0x00])
    }

    @Test(arguments: [UInt8(0x03), 0x07, 0x08])
    func authenticateControlBytes(control: UInt8) {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let keyHandle = (0..<64).map { UInt8($0) }
        let apdu = CommandAPDU(cla: 0x00, ins: 0x02, p1: control, p2: 0x00, data: Self.challenge + Self.application + [64] + keyHandle, ne: 256)
        #expect(front.transmit(apdu.encoded) == [0x01, 0x00, 0x00, 0x00, 0x07, 0x30, 0x45, 0x90, 0x00])
        #expect(applet.authenticates.count == 1)
        #expect(applet.authenticates.first?.control == control)
        #expect(applet.authenticates.first?.keyHandle == keyHandle)
        #expect(applet.authenticates.first?.challenge == Self.challenge)
        #expect(applet.authenticates.first?.application == Self.application)
    }

    @Test func authenticateWithEmptyKeyHandle() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let apdu = CommandAPDU(cla: 0x00, ins: 0x02, p1: 0x07, p2: 0x00, data: Self.challenge + Self.application + [0])
        #expect(Wire.sw(front.transmit(apdu.encoded)) == .success)
        #expect(applet.authenticates.first?.keyHandle == [])
    }

    @Test(arguments: [StatusWord.conditionsNotSatisfied, .wrongData, .wrongLength])
    func failureOutcomesMapToTheirStatusWord(sw: StatusWord) {
        let applet = FakeApplet()
        applet.authenticateOutcome = .failure(sw)
        applet.registerOutcome = .failure(sw)
        let front = Wire.selectedFront(applet)
        let auth = CommandAPDU(cla: 0x00, ins: 0x02, p1: 0x07, p2: 0x00, data: Self.challenge + Self.application + [1, 9])
        #expect(front.transmit(auth.encoded) == sw.bytes)
        let register = CommandAPDU(cla: 0x00, ins: 0x01, p1: 0x00, p2: 0x00, data: Self.challenge + Self.application)
        #expect(front.transmit(register.encoded) == sw.bytes)
    }

    @Test func version() {
        let front = Wire.selectedFront()
        let expected = Array("U2F_V2".utf8) + [0x90, 0x00]
        #expect(front.transmit(hex("00030000")) == expected)
        #expect(front.transmit(hex("0003000000")) == expected)
        #expect(front.transmit(hex("00030000 000000")) == expected)
        // P1/P2 are ignored, as U2F says.
        #expect(front.transmit(hex("00030102")) == expected)
        #expect(Wire.sw(front.transmit(hex("00030000 000001 00"))) == .wrongLength)
    }
}
