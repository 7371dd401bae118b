import ISO7816
import Testing
import FIDOWire
import TestSupport

/// ISO/IEC 7816-4 §5.1 length fields at their bounds: an Lc or Le that disagrees with the bytes
/// that follow is `6700` for every instruction, nothing reaches the card, and the front answers
/// the next APDU as usual; GET RESPONSE hands out a long response in pieces of any Le, to the
/// last byte.
@Suite("CardFront: Lc, Le and GET RESPONSE at their bounds")
struct CardFrontLengthBoundsTests {
    /// Every instruction the front knows, as (CLA, INS, P1, P2) it accepts.
    static let headers: [[UInt8]] = [
        [0x00, 0xA4, 0x04, 0x00], [0x80, 0x10, 0x80, 0x00], [0x80, 0x11, 0x00, 0x00], [0x00, 0xC0, 0x00, 0x00],
        [0x00, 0x01, 0x03, 0x00], [0x00, 0x02, 0x03, 0x00], [0x00, 0x03, 0x00, 0x00],
    ]

    /// Bodies whose length fields say something other than what follows them.
    static let disagreeing: [(String, [UInt8])] = [
        ("Lc FF, 254 bytes", [0xFF] + [UInt8](repeating: 0x11, count: 254)),
        ("Lc FF, 257 bytes (Le and one more)", [0xFF] + [UInt8](repeating: 0x11, count: 257)),
        ("00 then one byte", [0x00, 0x01]),
        ("extended Lc FFFF, 10 bytes", [0x00, 0xFF, 0xFF] + [UInt8](repeating: 0x22, count: 10)),
        ("extended Lc FFFF, 65534 bytes", [0x00, 0xFF, 0xFF] + [UInt8](repeating: 0x22, count: 65534)),
        ("extended Lc 0001, a one-byte Le", [0x00, 0x00, 0x01, 0x33, 0x00]),
        ("extended Lc 0000 with data", [0x00, 0x00, 0x00, 0x44]),
    ]

    @Test("an Lc that disagrees with the data is 6700 for every instruction; nothing reaches the card; the next APDU is answered",
          arguments: headers)
    func disagreeingLengths(header: [UInt8]) {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        for (name, body) in Self.disagreeing {
            #expect(Wire.sw(front.transmit(header + body)) == .wrongLength, "\(Hex.string(header)) \(name)")
        }
        #expect(applet.ctapRequests.isEmpty && applet.registers.isEmpty && applet.authenticates.isEmpty)
        #expect(Wire.sw(front.transmit(Wire.select)) == .success, "the front answers the next APDU")
    }

    @Test("a response of 3001 bytes comes back whole through GET RESPONSE with every Le (1, 17, 255, 256 as 00; 65536 extended)",
          arguments: [[UInt8(0x01)], [0x11], [0xFF], [0x00], [0x00, 0x00, 0x00]])
    func getResponseEveryLe(le: [UInt8]) {
        // An extended Le needs the extended Lc too (ISO/IEC 7816-4 §5.1).
        let message: [UInt8] = le.count == 1 ? [0x01, 0x04] : [0x00, 0x00, 0x01, 0x04]
        let getLe = le.count == 1 ? le : [0x00, 0x00, 0x00]
        let applet = FakeApplet()
        let expected = (0..<3001).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        applet.ctapResponder = { _ in expected }
        let front = Wire.selectedFront(applet)
        var response = ResponseAPDU(parsing: front.transmit([0x80, 0x10, 0x80, 0x00] + message + (le.count == 1 ? le : [0x00, 0x00])))!
        var collected = response.data
        var rounds = 0
        while response.statusWord.isBytesRemaining && rounds < 4000 {
            response = ResponseAPDU(parsing: front.transmit([0x00, 0xC0, 0x00, 0x00] + getLe))!
            collected += response.data
            rounds += 1
        }
        #expect(response.statusWord == .success)
        #expect(collected == expected)
        #expect(Wire.sw(front.transmit([0x00, 0xC0, 0x00, 0x00, 0x00])) == .conditionsNotSatisfied, "nothing left to get")
    }

    @Test("an extended NFCCTAP_MSG of 65535 bytes (maxMsgSize 1200) is CTAP2_ERR_REQUEST_TOO_LARGE in a 9000, and so is a chain that crosses maxMsgSize by one byte")
    func longestMessages() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        let longest = [0x80, 0x10, 0x80, 0x00, 0x00, 0xFF, 0xFF] + [UInt8](repeating: 0x04, count: 65535) + [0x00, 0x00]
        #expect(front.transmit(longest) == [CTAPStatus.requestTooLarge.rawValue, 0x90, 0x00])
        for _ in 0..<4 {
            #expect(Wire.sw(front.transmit([0x90, 0x10, 0x80, 0x00, 0xFF] + [UInt8](repeating: 0x04, count: 255))) == .success)
        }
        #expect(front.transmit([0x80, 0x10, 0x80, 0x00, 0xB5] + [UInt8](repeating: 0x04, count: 181) + [0x00])
                == [CTAPStatus.requestTooLarge.rawValue, 0x90, 0x00], "4 × 255 + 181 = 1201 bytes")
        #expect(applet.ctapRequests.isEmpty)
    }
}
