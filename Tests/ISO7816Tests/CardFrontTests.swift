import ISO7816
import Testing
import FIDOWire
import TestSupport

@Suite("CardFront: selection, status words, robustness")
struct CardFrontTests {
    struct BadAPDU: CustomTestStringConvertible, Sendable {
        let hex: String
        let sw: UInt16
        let why: String
        var testDescription: String { "\(why): \(hex.isEmpty ? "(empty)" : hex) → \(String(sw, radix: 16))" }
    }

    static let aid = "A0000006472F0001"

    /// Each of these goes to a front with the FIDO applet selected.
    static let badAPDUs: [BadAPDU] = [
        BadAPDU(hex: "", sw: 0x6700, why: "empty"),
        BadAPDU(hex: "00", sw: 0x6700, why: "one byte"),
        BadAPDU(hex: "00A404", sw: 0x6700, why: "three bytes"),
        BadAPDU(hex: "00A4040000 00", sw: 0x6700, why: "short Lc 00"),
        BadAPDU(hex: "00A4040009 \(aid)", sw: 0x6700, why: "Lc longer than data"),
        BadAPDU(hex: "00A4040006 \(aid)", sw: 0x6700, why: "Lc shorter than data"),
        BadAPDU(hex: "80108000 000002 04", sw: 0x6700, why: "extended Lc longer than data"),
        BadAPDU(hex: "80108000 000000 04", sw: 0x6700, why: "extended Lc 0000 with data"),
        BadAPDU(hex: "01A40400", sw: 0x6E00, why: "logical channel CLA"),
        BadAPDU(hex: "84A4040008 \(aid)", sw: 0x6E00, why: "secure-messaging CLA"),
        BadAPDU(hex: "FFA40400", sw: 0x6E00, why: "CLA FF"),
        BadAPDU(hex: "A0A40400", sw: 0x6E00, why: "CLA A0"),
        BadAPDU(hex: "00FF0000", sw: 0x6D00, why: "unknown INS"),
        BadAPDU(hex: "80A4040008 \(aid)", sw: 0x6D00, why: "SELECT in class 80"),
        BadAPDU(hex: "0010800001 04", sw: 0x6D00, why: "NFCCTAP_MSG in class 00"),
        BadAPDU(hex: "80030000", sw: 0x6D00, why: "U2F VERSION in class 80"),
        BadAPDU(hex: "80120000", sw: 0x6D00, why: "NFCCTAP_CONTROL not offered"),
        BadAPDU(hex: "00A4000008 \(aid)", sw: 0x6A86, why: "SELECT P1 00"),
        BadAPDU(hex: "00A4020008 \(aid)", sw: 0x6A86, why: "SELECT P1 02"),
        BadAPDU(hex: "00A4040408 \(aid)", sw: 0x6A86, why: "SELECT P2 04"),
        BadAPDU(hex: "00A40400", sw: 0x6700, why: "SELECT without AID"),
        BadAPDU(hex: "00A4040007 A0000006472F00", sw: 0x6A82, why: "partial AID"),
        BadAPDU(hex: "00A4040009 \(aid)02", sw: 0x6A82, why: "longer AID"),
        BadAPDU(hex: "00A4040007 A0000005272101", sw: 0x6A82, why: "another applet's AID"),
        BadAPDU(hex: "8010010001 04", sw: 0x6A86, why: "NFCCTAP_MSG P1 01"),
        BadAPDU(hex: "8010800101 04", sw: 0x6A86, why: "NFCCTAP_MSG P2 01"),
        BadAPDU(hex: "80108000", sw: 0x6700, why: "NFCCTAP_MSG without data"),
        BadAPDU(hex: "8010800000", sw: 0x6700, why: "NFCCTAP_MSG with only Le"),
        BadAPDU(hex: "8011220000", sw: 0x6A86, why: "NFCCTAP_GETRESPONSE P1 22"),
        BadAPDU(hex: "8011000100", sw: 0x6A86, why: "NFCCTAP_GETRESPONSE P2 01"),
        BadAPDU(hex: "8011000001 00", sw: 0x6700, why: "NFCCTAP_GETRESPONSE with data"),
        BadAPDU(hex: "8011000000", sw: 0x6985, why: "NFCCTAP_GETRESPONSE with nothing pending"),
        BadAPDU(hex: "8011110000", sw: 0x6985, why: "cancel with nothing pending"),
        BadAPDU(hex: "00C0000000", sw: 0x6985, why: "GET RESPONSE (00) with nothing pending"),
        BadAPDU(hex: "80C0000000", sw: 0x6985, why: "GET RESPONSE (80) with nothing pending"),
        BadAPDU(hex: "00C0010000", sw: 0x6A86, why: "GET RESPONSE P1 01"),
        BadAPDU(hex: "00C0000001 00", sw: 0x6700, why: "GET RESPONSE with data"),
        BadAPDU(hex: "0001030040 " + String(repeating: "11", count: 63), sw: 0x6700, why: "REGISTER with 63 bytes"),
        BadAPDU(hex: "0001030041 " + String(repeating: "11", count: 65), sw: 0x6700, why: "REGISTER with 65 bytes"),
        BadAPDU(hex: "00010300", sw: 0x6700, why: "REGISTER without data"),
        BadAPDU(hex: "0002000042 " + String(repeating: "11", count: 64) + "0122", sw: 0x6A86, why: "AUTHENTICATE P1 00"),
        BadAPDU(hex: "0002090042 " + String(repeating: "11", count: 64) + "0122", sw: 0x6A86, why: "AUTHENTICATE P1 09"),
        BadAPDU(hex: "0002030040 " + String(repeating: "11", count: 64), sw: 0x6700, why: "AUTHENTICATE without L"),
        BadAPDU(hex: "0002030042 " + String(repeating: "11", count: 64) + "0222", sw: 0x6700, why: "AUTHENTICATE key handle shorter than L"),
        BadAPDU(hex: "0002030043 " + String(repeating: "11", count: 64) + "012233", sw: 0x6700, why: "AUTHENTICATE key handle longer than L"),
        BadAPDU(hex: "0003000001 00", sw: 0x6700, why: "VERSION with data"),
    ]

    @Test(arguments: badAPDUs)
    func badAPDUGetsExactStatusWord(_ bad: BadAPDU) {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(hex(bad.hex))) == StatusWord(rawValue: bad.sw))
        #expect(applet.ctapRequests.isEmpty && applet.registers.isEmpty && applet.authenticates.isEmpty)
        // The front keeps working afterwards (a wrong-AID SELECT deselects, so select again).
        _ = front.transmit(Wire.select)
        let response = front.transmit(hex("8010800001 04 00"))
        #expect(response == [0x00, 0x04, 0x90, 0x00])
    }

    static let beforeSelect: [String] = [
        "8010800001 04 00", "8010000001 04", "8011000000", "8011110000",
        "00030000", "0001030040 " + String(repeating: "11", count: 64),
        "0002030042 " + String(repeating: "11", count: 64) + "0122",
        "9010800001 04",
    ]

    /// Before SELECT the applet's commands answer 6985 (conditions of use not satisfied).
    @Test(arguments: beforeSelect)
    func commandsBeforeSelectAnswer6985(_ apdu: String) {
        let applet = FakeApplet()
        let front = FrontUnderTest(applet: applet)
        #expect(Wire.sw(front.transmit(hex(apdu))) == .conditionsNotSatisfied)
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test func selectVariants() {
        let front = FrontUnderTest(applet: FakeApplet())
        let fido = Array("FIDO_2_0".utf8)
        #expect(front.transmit(hex("00A4040008 A0000006472F0001 00")) == fido + [0x90, 0x00])
        #expect(front.transmit(hex("00A4040008 A0000006472F0001")) == fido + [0x90, 0x00])
        #expect(front.transmit(hex("00A4040C08 A0000006472F0001")) == [0x90, 0x00])
        #expect(front.transmit(hex("00A4040008 A0000006472F0001 05")) == Array("FIDO_".utf8) + [0x61, 0x03])
        #expect(front.transmit(hex("00C0000003")) == Array("2_0".utf8) + [0x90, 0x00])
        #expect(front.isAppletSelected)
        // Extended-length SELECT.
        #expect(front.transmit(hex("00A40400 000008 A0000006472F0001 0000")) == fido + [0x90, 0x00])
    }

    @Test func selectAnswerU2FOnly() {
        let applet = FakeApplet()
        applet.selectResponse = Array("U2F_V2".utf8)
        applet.supportsCTAP2 = false
        let front = Wire.selectedFront(applet)
        #expect(front.transmit(Wire.select) == Array("U2F_V2".utf8) + [0x90, 0x00])
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .insNotSupported)
        #expect(Wire.sw(front.transmit(hex("8011000000"))) == .insNotSupported)
    }

    @Test func ctapOnlyRefusesU2F() {
        let applet = FakeApplet()
        applet.supportsU2F = false
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(hex("00030000"))) == .insNotSupported)
        #expect(Wire.sw(front.transmit(hex("0001000040" + String(repeating: "00", count: 64)))) == .insNotSupported)
    }

    @Test func wrongAIDDeselects() {
        let front = Wire.selectedFront()
        #expect(Wire.sw(front.transmit(hex("00A4040007 A0000005272101 00"))) == .fileNotFound)
        #expect(!front.isAppletSelected)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .conditionsNotSatisfied)
        _ = front.transmit(Wire.select)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .success)
    }

    @Test func powerCycleClearsSelectionAndTellsApplet() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        front.powerOff()
        #expect(applet.powerOffCount == 1)
        #expect(!front.isAppletSelected)
        front.powerOn()
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .conditionsNotSatisfied)
        _ = front.transmit(Wire.select)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .success)
    }

    @Test func powerOffDropsChainAndPendingResponse() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x00, count: 600) }
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .bytesRemaining(344))
        front.powerOff()
        front.powerOn()
        _ = front.transmit(Wire.select)
        #expect(Wire.sw(front.transmit(hex("00C0000000"))) == .conditionsNotSatisfied)
        #expect(Wire.sw(front.transmit(hex("9010800001 01"))) == .success)
        front.powerOn()
        _ = front.transmit(Wire.select)
        // The half chain is gone: a plain command is not "a different command of the chain".
        #expect(Wire.sw(front.transmit(hex("8010800001 04 00"))) == .bytesRemaining(344))
    }

    @Test func badAPDUsInterleavedWithGoodOnes() {
        let applet = FakeApplet()
        let front = FrontUnderTest(applet: applet)
        var client = ChainingClient.pythonFido2
        let request: [UInt8] = [0x01] + Array(repeating: 0xAB, count: 600)
        for (index, bad) in Self.badAPDUs.enumerated() {
            _ = front.transmit(Wire.select)
            let response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request + [UInt8(index)])
            #expect(response == ResponseAPDU(data: [0x00] + request + [UInt8(index)], statusWord: .success))
            _ = front.transmit(hex(bad.hex))
            #expect(Wire.sw(front.transmit(hex("00030000"))) == (front.isAppletSelected ? .success : .conditionsNotSatisfied))
        }
        #expect(applet.ctapRequests.count == Self.badAPDUs.count)
    }

    static let validAPDUs: [String] = [
        "00A4040008 A0000006472F0001 00",
        "8010800001 04 00",
        "80100000 000001 04 0000",
        "0001030040 " + String(repeating: "5A", count: 64) + "00",
        "00020700 000042 " + String(repeating: "5A", count: 64) + "0122 0000",
        "00030000 000000",
    ]

    /// Every prefix of a valid APDU either is itself a valid (shorter) APDU or answers
    /// 6700; the front keeps working after each, and the whole APDU then succeeds.
    @Test(arguments: validAPDUs)
    func everyPrefixThroughTheFront(_ apdu: String) {
        let bytes = hex(apdu)
        let front = Wire.selectedFront()
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            let response = front.transmit(prefix)
            if (try? CommandAPDU(parsing: prefix)) == nil {
                #expect(Wire.sw(response) == .wrongLength, "prefix \(length)")
            }
            _ = front.transmit(Wire.select)
        }
        let whole = Wire.sw(front.transmit(bytes))
        #expect(whole == .success || whole.isBytesRemaining)
    }

    /// Random bytes never crash the front and never leave it unusable.
    @Test func randomAPDUsDoNotBreakTheFront() {
        let applet = FakeApplet()
        let front = FrontUnderTest(applet: applet)
        var generator = SplitMix64(seed: 0x5EED)
        for round in 0..<5000 {
            let length = Int(generator.next() % 300)
            var apdu = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 3 == 0, apdu.count >= 2 {
                // Aim at the interesting classes and instructions.
                apdu[0] = [0x00, 0x10, 0x80, 0x90][Int(generator.next() % 4)]
                apdu[1] = [0x01, 0x02, 0x03, 0x10, 0x11, 0xA4, 0xC0][Int(generator.next() % 7)]
            }
            if round % 50 == 0 { _ = front.transmit(Wire.select) }
            let response = front.transmit(apdu)
            #expect(response.count >= 2)
        }
        front.powerOn()
        _ = front.transmit(Wire.select)
        #expect(front.transmit(hex("8010800001 04 00")) == [0x00, 0x04, 0x90, 0x00])
    }
}
