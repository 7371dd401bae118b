import ISO7816
import FIDOWire

/// A FIDO applet double that records what the front hands it and answers from closures.
final class FakeApplet: FIDOApplet {
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
}

/// Test helpers around a front.
enum Wire {
    static let select: [UInt8] = NFCBinding.selectFIDOApplet

    /// Parses a hex string with optional spaces.
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// A front with the FIDO applet selected.
    static func selectedFront(_ applet: FakeApplet = FakeApplet(), options: CardFront.Options = .init()) -> CardFront {
        let front = CardFront(applet: applet, options: options)
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

    mutating func send(_ front: CardFront, cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]) -> ResponseAPDU {
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

    private mutating func exchange(_ front: CardFront, _ apdu: [UInt8]) -> ResponseAPDU {
        apduCount += 1
        let response = ResponseAPDU(parsing: front.transmit(apdu)) ?? ResponseAPDU(statusWord: StatusWord(rawValue: 0))
        statusWords.append(response.statusWord)
        return response
    }
}
