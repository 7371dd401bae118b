import ArculusCard
import CardCrypto
import FIDOWire

// The `card` target's input language (see FuzzCard.swift): operations on a card in the field,
// from raw APDUs to whole CTAP messages sent the way NFC clients send them.

/// One input run against one card: the operations, the platform's knowledge, what the card said.
struct FuzzCardProgram {
    var card: FuzzCard
    var platform: FuzzPlatform
    /// Every response APDU, in order (a power cycle is an empty one): what determinism compares.
    private(set) var responses: [[UInt8]] = []
    /// Operations that cost the card real cryptography (key generation, ECDH, signatures) or a
    /// power-up: an input stops after `expensiveBudget` of them, which bounds its time.
    private var expensive = 0
    static let expensiveBudget = 4
    static let maximumOperations = 32

    init(start: FuzzStart) {
        card = start.card
        platform = start.platform
    }

    /// The opcodes, by the low five bits of an operation's first byte: the costly ones rare
    /// among random bytes.
    enum Operation {
        case rawAPDU, ctapGenerated, ctapRaw, select, getResponse, u2f, powerCycle, failNextWrite, clock

        init(_ byte: UInt8) {
            switch byte % 32 {
            case 0...7: self = .rawAPDU
            case 8...19: self = .ctapGenerated
            case 20...21: self = .ctapRaw
            case 22...23: self = .select
            case 24...25: self = .getResponse
            case 26...27: self = .u2f
            case 28: self = .powerCycle
            case 29: self = .failNextWrite
            default: self = .clock
            }
        }

        /// The first byte that means this operation.
        var code: UInt8 {
            switch self {
            case .rawAPDU: 0
            case .ctapGenerated: 8
            case .ctapRaw: 20
            case .select: 22
            case .getResponse: 24
            case .u2f: 26
            case .powerCycle: 28
            case .failNextWrite: 29
            case .clock: 30
            }
        }
    }

    mutating func run(_ input: inout FuzzInput) {
        var operations = 0
        while !input.isEmpty && operations < Self.maximumOperations && expensive < Self.expensiveBudget {
            operations += 1
            switch Operation(input.byte()) {
            case .rawAPDU:
                let apdu = input.piece()
                let response = transmit(apdu).response
                if Self.mayHaveBeenExpensive(apdu, response: response) { expensive += 1 }
            case .ctapGenerated:
                let style = input.byte()
                let request = FuzzCTAPGenerator.request(&input, platform: &platform)
                sendCTAP(request, style: style, input: &input)
            case .ctapRaw:
                let style = input.byte()
                sendCTAP(input.piece(), style: style, input: &input)
            case .select:
                select(input.byte())
            case .getResponse:
                getResponse(input.byte())
            case .u2f:
                u2f(&input)
            case .powerCycle:
                expensive += 1
                card.powerCycle()
                platform.cardPoweredOff()
                responses.append([])
            case .failNextWrite:
                card.failNextWrite = true
            case .clock:
                card.advance(by: .seconds(Int(input.byte())))
            }
        }
    }

    // MARK: - APDUs

    /// One APDU; its response is checked and recorded.
    private mutating func transmit(_ apdu: [UInt8]) -> FuzzCard.Exchange {
        let exchange = card.transmit(apdu)
        checkResponseAPDU(exchange.response, to: apdu)
        if let command = exchange.failedWrite {
            // A failed write: CTAP1_ERR_OTHER for CTAP2 (in a 9000 or, with a small Le, a 61xx),
            // 6A80 for U2F, and the card's memory as before (FuzzCard checks that).
            switch command {
            case .u2fRegister, .u2fAuthenticate:
                fuzzCheck(exchange.response == [0x6A, 0x80], "a failed U2F write answered \(fuzzHex(exchange.response))")
            default:
                fuzzCheck(exchange.response.first == CTAPStatus.other.rawValue,
                          "a failed write answered \(fuzzHex(exchange.response.prefix(8)))")
            }
        }
        responses.append(exchange.response)
        return exchange
    }

    /// An APDU and the GET RESPONSEs its `61xx` asks for: all the data, and the last status word.
    private mutating func exchange(_ apdu: [UInt8], getResponseLe: UInt8? = nil) -> (data: [UInt8], sw: [UInt8]) {
        var response = transmit(apdu).response
        var data = response.dropLast(2)
        var rounds = 0
        while Self.statusWord(of: response) & 0xFF00 == 0x6100, rounds < 64 {
            rounds += 1
            response = transmit([0x00, 0xC0, 0x00, 0x00, getResponseLe ?? response[response.count - 1]]).response
            data += response.dropLast(2)
        }
        return (Array(data), Array(response.suffix(2)))
    }

    /// SW1 SW2 of a response (0 for one too short to have them).
    static func statusWord(of response: [UInt8]) -> UInt16 {
        response.count < 2 ? 0 : UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
    }

    /// SELECT: the FIDO AID with and without response data, no Le, or an AID that is only a prefix.
    private mutating func select(_ variant: UInt8) {
        let aid = NFCBinding.fidoAID
        switch variant % 4 {
        case 0: _ = exchange([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00])
        case 1: _ = exchange([0x00, 0xA4, 0x04, 0x0C, UInt8(aid.count)] + aid)
        case 2: _ = exchange([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count - 1)] + aid.dropLast() + [0x00])
        default: _ = exchange([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid)
        }
    }

    /// GET RESPONSE (with an Le from the variant, or none) or NFCCTAP_GETRESPONSE (poll, cancel).
    private mutating func getResponse(_ variant: UInt8) {
        switch variant % 4 {
        case 0: _ = transmit([0x00, 0xC0, 0x00, 0x00, variant >> 2])
        case 1: _ = transmit([0x80, 0x11, 0x00, 0x00, 0x00])
        case 2: _ = transmit([0x80, 0x11, 0x11, 0x00])
        default: _ = transmit([0x00, 0xC0, 0x00, 0x00])
        }
    }

    // MARK: - CTAP messages

    /// A CTAP request as an NFC client sends it (CTAP 2.1 §11.3): NFCCTAP_MSG, short and chained
    /// or extended, with P1 `80` or `00`, then GET RESPONSE while `61xx` and NFCCTAP_GETRESPONSE
    /// while `9100` (or a cancel). `style`:
    ///   bit 0 P1 `80` · bit 1 extended · bits 2-4 chain piece size (16…255) · bits 5-6 Le: `00`, none,
    ///   from the next byte, `10` · bit 7 cancel at the first `9100`.
    private mutating func sendCTAP(_ request: [UInt8], style: UInt8, input: inout FuzzInput) {
        guard !request.isEmpty else { return }
        let p1: UInt8 = style & 0x01 != 0 ? NFCBinding.messageSupportsGetResponse : 0x00
        let le: [UInt8]
        switch style >> 5 & 0x03 {
        case 0: le = [0x00]
        case 1: le = []
        case 2: le = [max(1, input.byte())]
        default: le = [0x10]
        }
        let failedBefore = card.failedWrites
        var last: [UInt8]
        if style & 0x02 != 0 && request.count <= 0xFFFF {
            last = transmit([0x80, 0x10, p1, 0x00, 0x00, UInt8(request.count >> 8), UInt8(request.count & 0xFF)] + request
                            + (le.isEmpty ? [] : [0x00, le[0] == 0x00 ? 0x00 : le[0]])).response
        } else {
            let size = [250, 255, 128, 64, 16, 100, 200, 240][Int(style >> 2 & 0x07)]
            var rest = request[...]
            while rest.count > size {
                let piece = transmit([0x90, 0x10, p1, 0x00, UInt8(size)] + rest.prefix(size)).response
                guard piece == [0x90, 0x00] else { return }
                rest = rest.dropFirst(size)
            }
            last = transmit([0x80, 0x10, p1, 0x00, UInt8(rest.count)] + rest + le).response
        }
        var pieces = last.dropLast(2)
        var rounds = 0
        while rounds < 64 {
            rounds += 1
            if Self.statusWord(of: last) & 0xFF00 == 0x6100 {
                last = transmit([0x00, 0xC0, 0x00, 0x00, last[last.count - 1]]).response
                pieces += last.dropLast(2)
            } else if Self.statusWord(of: last) == 0x9100 {
                last = transmit([0x80, 0x11, style & 0x80 != 0 ? NFCBinding.getResponseCancel : 0x00, 0x00, 0x00]).response
                pieces = last.dropLast(2)
            } else {
                break
            }
        }
        guard Self.statusWord(of: last) == 0x9000 else { return }
        let data = Array(pieces)
        if FuzzCTAPGenerator.wasExpensive(request, response: data) { expensive += 1 }
        // The whole CTAP response: checked as the ctap2 target checks them.
        let body = checkCTAPResponse(data, to: request)
        if card.failedWrites > failedBefore {
            fuzzCheck(data == [CTAPStatus.other.rawValue], "a failed write answered \(fuzzHex(data.prefix(8)))")
        }
        platform.observe(request: request, response: data, body: body)
    }

    /// Whether a raw APDU may have made the card sign, generate a key or do ECDH: a whole (not
    /// chained) NFCCTAP_MSG carrying one of those requests, or U2F REGISTER/AUTHENTICATE, answered
    /// without an error status word.
    private static func mayHaveBeenExpensive(_ apdu: [UInt8], response: [UInt8]) -> Bool {
        guard apdu.count > 5, apdu[0] & 0x10 == 0, response.count >= 2,
              response[response.count - 2] == 0x90 || response[response.count - 2] == 0x61 else { return false }
        switch apdu[1] {
        case FIDOInstruction.u2fRegister.rawValue, FIDOInstruction.u2fAuthenticate.rawValue: return true
        case FIDOInstruction.nfcctapMessage.rawValue:
            guard let command = try? CommandAPDU(parsing: apdu), !command.data.isEmpty else { return false }
            return FuzzCTAPGenerator.wasExpensive(command.data, response: [CTAPStatus.ok.rawValue])
        default: return false
        }
    }

    // MARK: - U2F

    /// U2F REGISTER, AUTHENTICATE (check-only, enforce or don't-enforce user presence, with a key
    /// handle the card made, a credential ID, or other bytes) or VERSION, or a REGISTER of the
    /// wrong length.
    private mutating func u2f(_ input: inout FuzzInput) {
        let variant = input.byte()
        let challenge = fuzzFiller(32, seed: input.byte())
        let application = SHA256.hash(Array(input.pick(["https://example.com", "example.com", "https://other.example"]).utf8))
        switch variant % 4 {
        case 0:
            expensive += 1
            let (data, sw) = exchange([0x00, 0x01, 0x03, 0x00, 64] + challenge + application + [0x00])
            platform.observeU2FRegister(data + sw)
        case 1:
            expensive += 1
            let handles = platform.keyHandles + platform.credentialIDs
            let choice = Int(input.byte())
            let handle = choice < 0xF0 && !handles.isEmpty ? handles[choice % handles.count] : fuzzFiller(choice % 80, seed: 12)
            let controls = U2FControl.allCases.map(\.rawValue)
            let which = input.choice(controls.count + 1)
            let control = which < controls.count ? controls[which] : input.byte()
            _ = exchange([0x00, 0x02, control, 0x00, UInt8(truncatingIfNeeded: 65 + handle.count)] + challenge + application
                         + [UInt8(truncatingIfNeeded: handle.count)] + handle + [0x00])
        case 2:
            _ = exchange([0x00, 0x03, 0x00, 0x00, 0x00])
        default:
            _ = exchange([0x00, 0x01, 0x03, 0x00, 63] + challenge + application.dropLast() + [0x00])
        }
    }

    // MARK: - After the input

    /// Without being taken off the reader, the card answers SELECT and getInfo. A chain the input
    /// left open takes the first SELECT: a chain of another command drops it with `6883`, a
    /// SELECT chain takes it as its last piece (ISO 7816-4 §5.1.1.1) and answers for the AID it
    /// makes; so one more SELECT may be needed.
    mutating func checkRecovers() {
        let select = NFCBinding.selectFIDOApplet
        let chainOpen = card.model.front.state.inventory.contains { $0.name == "commandChain" && !$0.isInitial }
        var answer = card.transmit(select).response
        if chainOpen { answer = card.transmit(select).response }
        fuzzCheck(Self.statusWord(of: answer) == 0x9000, "SELECT after the input answered \(fuzzHex(answer))")
        let info = card.transmit([0x80, 0x10, 0x00, 0x00, 0x01, CTAPCommand.getInfo.rawValue, 0x00]).response
        fuzzCheck(Self.statusWord(of: info) == 0x9000 && info.first == CTAPStatus.ok.rawValue,
                  "getInfo after the input answered \(fuzzHex(info.prefix(8)))")
    }
}
