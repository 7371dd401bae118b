import ISO7816
import Testing
import TestSupport

@Suite("CardFront: NFCCTAP_MSG, NFCCTAP_GETRESPONSE, busy polling and cancel")
struct CardFrontNFCCTAPTests {
    static let getInfo = hex("8010800001 04 00")
    static let poll = hex("8011000000")
    static let cancel = hex("8011110000")

    @Test func directAnswerWithoutBusyFirst() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet)
        #expect(front.transmit(Self.getInfo) == [0x00, 0x04, 0x90, 0x00])
        #expect(front.transmit(hex("8010000001 04")) == [0x00, 0x04, 0x90, 0x00])
        #expect(Wire.sw(front.transmit(Self.poll)) == .conditionsNotSatisfied)
    }

    @Test(arguments: [0, 1, 3])
    func busyFirstPolling(busyPolls: Int) {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: busyPolls))
        #expect(front.transmit(Self.getInfo) == [0x01, 0x91, 0x00])
        #expect(applet.ctapRequests.isEmpty)
        for _ in 0..<busyPolls {
            #expect(front.transmit(Self.poll) == [0x01, 0x91, 0x00])
            #expect(applet.ctapRequests.isEmpty)
        }
        #expect(front.transmit(Self.poll) == [0x00, 0x04, 0x90, 0x00])
        #expect(applet.ctapRequests == [[0x04]])
        #expect(Wire.sw(front.transmit(Self.poll)) == .conditionsNotSatisfied)
    }

    @Test func busyFirstOnlyForP1_80() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true))
        #expect(front.transmit(hex("8010000001 04 00")) == [0x00, 0x04, 0x90, 0x00])
    }

    /// python-fido2's loop: while 9100, read the keepalive byte and poll again.
    @Test func pythonFido2StylePollingWithLongResult() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in Array(repeating: 0x5C, count: 700) }
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 2))
        var client = ChainingClient.pythonFido2
        var response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: [0x01] + Array(repeating: 9, count: 600))
        var keepalives: [UInt8] = []
        while response.statusWord == .ctapStillProcessing {
            keepalives.append(response.data.first ?? 0xFF)
            response = client.send(front, cla: 0x80, ins: 0x11, p1: 0x00, p2: 0x00, data: [])
        }
        #expect(keepalives == [0x01, 0x01, 0x01])
        #expect(response == ResponseAPDU(data: Array(repeating: 0x5C, count: 700), statusWord: .success))
        #expect(applet.ctapRequests == [[0x01] + Array(repeating: 9, count: 600)])
    }

    @Test func cancelDropsThePendingRequest() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 5))
        #expect(Wire.sw(front.transmit(Self.getInfo)) == .ctapStillProcessing)
        #expect(Wire.sw(front.transmit(Self.poll)) == .ctapStillProcessing)
        #expect(front.transmit(Self.cancel) == [0x2D, 0x90, 0x00])
        #expect(applet.ctapRequests.isEmpty)
        #expect(Wire.sw(front.transmit(Self.poll)) == .conditionsNotSatisfied)
        #expect(Wire.sw(front.transmit(Self.cancel)) == .conditionsNotSatisfied)
    }

    @Test func cancelRightAfterTheMessage() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true, busyPolls: 0))
        #expect(Wire.sw(front.transmit(Self.getInfo)) == .ctapStillProcessing)
        #expect(front.transmit(Self.cancel) == [0x2D, 0x90, 0x00])
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test func otherCommandAbandonsThePendingRequest() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true))
        #expect(Wire.sw(front.transmit(Self.getInfo)) == .ctapStillProcessing)
        #expect(Wire.sw(front.transmit(Wire.select)) == .success)
        #expect(Wire.sw(front.transmit(Self.poll)) == .conditionsNotSatisfied)
        #expect(applet.ctapRequests.isEmpty)
    }

    @Test func powerOffAbandonsThePendingRequest() {
        let applet = FakeApplet()
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true))
        #expect(Wire.sw(front.transmit(Self.getInfo)) == .ctapStillProcessing)
        front.powerOff()
        front.powerOn()
        _ = front.transmit(Wire.select)
        #expect(Wire.sw(front.transmit(Self.poll)) == .conditionsNotSatisfied)
    }

    @Test func oversizeWithBusyFirstIsAnsweredAtOnce() {
        let applet = FakeApplet()
        applet.maxMessageSize = 100
        let front = Wire.selectedFront(applet, options: .init(busyFirst: true))
        var client = ChainingClient.libfido2
        let response = client.send(front, cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: Array(repeating: 1, count: 300))
        #expect(response == ResponseAPDU(data: [0x39], statusWord: .success))
    }

    @Test func emptyAppletAnswerIsAFault() {
        let applet = FakeApplet()
        applet.ctapResponder = { _ in [] }
        let front = Wire.selectedFront(applet)
        #expect(Wire.sw(front.transmit(Self.getInfo)) == .noPreciseDiagnosis)
    }
}
