import FIDOWire

/// Follows the chosen reader's card through the calls and writes its transcript.
struct PCSCSpyImporter {
    private enum CardState { case unknown, powered, unpowered, removed }
    private enum Disposition: UInt64 { case leave = 0, reset = 1, unpower = 2, eject = 3 }

    private static let removedCard: UInt32 = 0x8010_0069  // SCARD_W_REMOVED_CARD

    private let reader: String
    private(set) var transcript: Transcript
    /// Every handle the log opened, with its reader.
    private var handles: [String: String] = [:]
    /// The handles connected now, oldest first: `pcsc-spy -d` shows `0x????` for the handle a
    /// call uses (though not for the one SCardConnect returns), so such calls are matched to
    /// the card connected at the time.
    private var connected: [String] = []
    private var state = CardState.unknown

    init(reader: String) {
        self.reader = reader
        transcript = Transcript(headers: [Transcript.Header("source", "pcsc-spy"), Transcript.Header("reader", reader)])
    }

    mutating func apply(_ call: PCSCSpyCall) throws(TranscriptError) {
        switch call.function {
        case "SCardConnect":
            guard call.succeeded else { return }
            let name = try call.field("i szReader").value
            let handle = try call.handle("o phCard")
            handles[handle] = name
            connected.append(handle)
            if name == reader { powerUp() }
        case "SCardReconnect":
            guard try isOurs(call) else { return }
            guard call.succeeded else { return noteFailure(call) }
            if state != .powered { return powerUp() }
            switch Disposition(rawValue: try call.number("i dwInitialization")) {
            case .reset: add(.reset)
            case .unpower, .eject: add(.powerOff); add(.powerOn)
            case .leave, nil: break
            }
        case "SCardDisconnect", "SCardEndTransaction":
            let ours = try isOurs(call)
            if call.function == "SCardDisconnect" && call.succeeded, let index = try connectedIndex(of: call) {
                connected.remove(at: index)
            }
            guard ours else { return }
            guard call.succeeded else { return noteFailure(call) }
            guard state == .powered else { return }
            switch Disposition(rawValue: try call.number("i dwDisposition")) {
            case .reset: add(.reset)
            case .unpower, .eject: add(.powerOff); state = .unpowered
            case .leave, nil: break
            }
        case "SCardStatus":
            guard try isOurs(call), call.succeeded, transcript.header("atr") == nil,
                  call.fields["o bAtrLen"]?.value != "NULL" else { return }
            if let atr = try call.buffer("o bAtr", length: "o bAtrLen"), !atr.isEmpty {
                transcript.setHeader("atr", atr.hexString.uppercased())
            }
        case "SCardTransmit":
            guard try isOurs(call) else { return }
            guard call.succeeded else { return noteFailure(call) }
            let command = try call.buffer("i bSendBuffer", length: "i bSendLength") ?? []
            let response = try call.buffer("o bRecvBuffer", length: "o bRecvLength") ?? []
            if state != .powered { powerUp() }
            guard !command.isEmpty, response.count >= 2 else {
                return comment("SCardTransmit (line \(call.line)) sent \(command.count) byte(s) and got \(response.count): not an APDU exchange, left out")
            }
            transcript.entries.append(.exchange(command: command, response: response, note: nil))
        default:
            break
        }
    }

    /// Whether the call is for a handle connected to the chosen reader.
    private func isOurs(_ call: PCSCSpyCall) throws(TranscriptError) -> Bool {
        let handle = try call.handle("i hCard")
        if handle.contains("?") {
            let readers = Set(connected.compactMap { handles[$0] })
            guard readers.count == 1, let name = readers.first else {
                throw TranscriptError(line: call.line, message: readers.isEmpty
                    ? "\(call.function) on a hidden handle (pcsc-spy -d) while no card is connected"
                    : "\(call.function) on a hidden handle (pcsc-spy -d) while cards in several readers are connected (\(readers.sorted().joined(separator: ", "))): record without -d")
            }
            return name == reader
        }
        guard let name = handles[handle] else {
            throw TranscriptError(line: call.line, message: "\(call.function) on handle \(handle) that no SCardConnect in the log opened (the log must begin before the application connects)")
        }
        return name == reader
    }

    /// Where the call's handle is in `connected` (for a hidden handle: the newest).
    private func connectedIndex(of call: PCSCSpyCall) throws(TranscriptError) -> Int? {
        let handle = try call.handle("i hCard")
        return handle.contains("?") ? connected.indices.last : connected.lastIndex(of: handle)
    }

    private mutating func powerUp() {
        switch state {
        case .powered: return
        case .removed: add(.tapped)
        case .unknown, .unpowered: add(.powerOn)
        }
        state = .powered
    }

    private mutating func noteFailure(_ call: PCSCSpyCall) {
        comment("\(call.function) failed: \(call.returnText) [0x\(String(call.returnCode, radix: 16, uppercase: true))]")
        if call.returnCode == Self.removedCard && state != .removed {
            add(.removed)
            state = .removed
        }
    }

    private mutating func add(_ event: CardEvent) {
        transcript.entries.append(.event(event))
    }

    /// Comments only after the first entry: the text form keeps no comment before it.
    private mutating func comment(_ text: String) {
        guard !transcript.entries.isEmpty else { return }
        transcript.entries.append(.comment(text))
    }
}
