import ISO7816
import FIDOWire

/// A card double behind the front: records what the front hands it and answers from closures.
final class FakeApplet {
    var selectResponse: [UInt8] = Array("FIDO_2_0".utf8)
    var supportsCTAP2 = true
    var supportsU2F = true
    var maxMessageSize = 1200

    /// Default CTAP answer: CTAP2_OK followed by the request echoed back.
    var ctapResponder: ([UInt8]) -> [UInt8] = { [0x00] + $0 }
    var registerOutcome: U2FOutcome = .success(Array(repeating: 0x05, count: 700))
    var authenticateOutcome: U2FOutcome = .success([0x01, 0x00, 0x00, 0x00, 0x07, 0x30, 0x45])

    private(set) var ctapRequests: [[UInt8]] = []
    private(set) var registers: [(challenge: [UInt8], application: [UInt8])] = []
    private(set) var authenticates: [(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8])] = []
    private(set) var powerOffCount = 0

    func processCTAP2(_ request: [UInt8]) -> [UInt8] {
        ctapRequests.append(request)
        return ctapResponder(request)
    }

    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FOutcome {
        registers.append((challenge, application))
        return registerOutcome
    }

    func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FOutcome {
        authenticates.append((control, challenge, application, keyHandle))
        return authenticateOutcome
    }

    func powerOff() {
        powerOffCount += 1
    }

    /// What the front is told about this card.
    func configuration(options: CardFront.Options) -> CardFront.Configuration {
        CardFront.Configuration(selectResponse: selectResponse, supportsCTAP2: supportsCTAP2, supportsU2F: supportsU2F,
                                maxMessageSize: maxMessageSize, options: options)
    }

    /// The result of a whole command, as a card gives it.
    func answer(_ command: CardFront.Command) -> CardFront.Result {
        switch command {
        case .select: .run
        case .ctap(let request, _), .ctapPoll(let request): .ctap(processCTAP2(request))
        case .u2fRegister(let challenge, let application): .u2f(u2fRegister(challenge: challenge, application: application))
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
            .u2f(u2fAuthenticate(control: control, challenge: challenge, application: application, keyHandle: keyHandle))
        }
    }
}

/// A front driven with a ``FakeApplet`` answering its commands (`CardFront` is a value; this
/// keeps one and its applet together, as a card does).
final class FrontUnderTest {
    let applet: FakeApplet
    private(set) var front: CardFront

    init(applet: FakeApplet, options: CardFront.Options = .init()) {
        self.applet = applet
        front = CardFront(configuration: applet.configuration(options: options))
    }

    var options: CardFront.Options { front.configuration.options }
    var isAppletSelected: Bool { front.isAppletSelected }

    func process(_ apdu: [UInt8]) -> ResponseAPDU {
        let applet = applet
        return front.transmit(apdu) { applet.answer($0) }
    }

    func transmit(_ apdu: [UInt8]) -> [UInt8] { process(apdu).bytes }

    func powerOn() { front.powerCycle() }

    func powerOff() {
        front.powerCycle()
        applet.powerOff()
    }
}

/// Test helpers around a front.
enum Wire {
    static let select: [UInt8] = NFCBinding.selectFIDOApplet

    /// A front with the FIDO applet selected.
    static func selectedFront(_ applet: FakeApplet = FakeApplet(), options: CardFront.Options = .init()) -> FrontUnderTest {
        let front = FrontUnderTest(applet: applet, options: options)
        _ = front.transmit(select)
        return front
    }

    static func sw(_ response: [UInt8]) -> StatusWord {
        ResponseAPDU(parsing: response)?.statusWord ?? StatusWord(rawValue: 0)
    }

    static func data(_ response: [UInt8]) -> [UInt8] {
        ResponseAPDU(parsing: response)?.data ?? []
    }
}

/// A client that sends a command the way python-fido2 (250-byte pieces, GET RESPONSE with
/// CLA 00) or libfido2 (240-byte pieces, GET RESPONSE with CLA 80) does, and collects the
/// whole response. It records every status word it saw.
struct ChainingClient {
    var pieceSize: Int
    var getResponseCLA: UInt8
    private(set) var statusWords: [StatusWord] = []
    private(set) var apduCount = 0

    static let pythonFido2 = ChainingClient(pieceSize: 250, getResponseCLA: 0x00)
    static let libfido2 = ChainingClient(pieceSize: 240, getResponseCLA: 0x80)

    init(pieceSize: Int, getResponseCLA: UInt8) {
        self.pieceSize = pieceSize
        self.getResponseCLA = getResponseCLA
    }

    mutating func send(_ front: FrontUnderTest, cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]) -> ResponseAPDU {
        var rest = data[...]
        while rest.count > pieceSize {
            let piece = Array(rest.prefix(pieceSize))
            rest = rest.dropFirst(pieceSize)
            let response = exchange(front, [cla | 0x10, ins, p1, p2, UInt8(piece.count)] + piece)
            guard response.statusWord == .success, response.data.isEmpty else { return response }
        }
        var last: [UInt8] = [cla, ins, p1, p2]
        if !rest.isEmpty { last += [UInt8(rest.count)] + rest }
        var response = exchange(front, last + [0x00])
        var collected = response.data
        while response.statusWord.isBytesRemaining {
            response = exchange(front, [getResponseCLA, 0xC0, 0x00, 0x00, response.statusWord.sw2])
            collected += response.data
        }
        return ResponseAPDU(data: collected, statusWord: response.statusWord)
    }

    private mutating func exchange(_ front: FrontUnderTest, _ apdu: [UInt8]) -> ResponseAPDU {
        apduCount += 1
        let response = ResponseAPDU(parsing: front.transmit(apdu)) ?? ResponseAPDU(statusWord: StatusWord(rawValue: 0))
        statusWords.append(response.statusWord)
        return response
    }
}
