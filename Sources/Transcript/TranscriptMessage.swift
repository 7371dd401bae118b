import CBOR
import CTAP2
import ISO7816
import FIDOWire

/// One exchange as the host sees it: a whole request and its whole response, however many
/// APDUs carried them (command chaining, `61xx` + GET RESPONSE, `9100` + NFCCTAP_GETRESPONSE),
/// or a card event. ``TranscriptMessages`` builds them from a transcript's APDUs.
public struct TranscriptMessage: Equatable, Sendable {
    /// What was asked.
    public enum Kind: Equatable, Sendable {
        /// SELECT of an application (AID).
        case select(aid: [UInt8])
        /// NFCCTAP_MSG: CTAP command byte + CBOR. `p1` is the NFCCTAP_MSG P1 (`80` when the
        /// client accepts `9100` and polls).
        case ctap2(request: [UInt8], p1: UInt8)
        /// U2F REGISTER, AUTHENTICATE or VERSION with its whole data field.
        case u2f(instruction: FIDOInstruction, p1: UInt8, p2: UInt8, data: [UInt8])
        /// Any other APDU, or a piece that belongs to nothing (one APDU, one response).
        case apdu(command: [UInt8])
        /// A card event.
        case event(CardEvent)
    }

    /// What was asked.
    public var kind: Kind
    /// The whole response data: for CTAP2 the status byte + CBOR (keepalive bytes of `9100`
    /// answers are not part of it); empty for events.
    public var response: [UInt8]
    /// The last status word of the exchange (nil for events).
    public var statusWord: StatusWord?
    /// The APDUs that carried it, in order (empty for events).
    public var exchanges: [APDUExchange]
    /// Indices of the transcript entries it spans (exchanges and comments between them).
    public var entries: Range<Int>
    /// The transcript line it starts on (the first command's `>` line, or the event's line).
    public var line: Int
    /// False when the response was left unfinished (a `61xx` or `9100` that was never
    /// followed up before the transcript ended or the host moved on).
    public var isComplete: Bool
    /// Number of `9100` answers the client polled through.
    public var busyPolls: Int

    /// One command APDU and its response, as in the transcript.
    public struct APDUExchange: Equatable, Sendable {
        /// The command APDU.
        public var command: [UInt8]
        /// The response APDU (data + SW1 SW2).
        public var response: [UInt8]
        /// One exchange.
        public init(command: [UInt8], response: [UInt8]) {
            self.command = command
            self.response = response
        }
    }

    /// A message; ``TranscriptMessages`` makes them from transcripts.
    public init(kind: Kind, response: [UInt8], statusWord: StatusWord?, exchanges: [APDUExchange],
                entries: Range<Int>, line: Int, isComplete: Bool = true, busyPolls: Int = 0) {
        self.kind = kind
        self.response = response
        self.statusWord = statusWord
        self.exchanges = exchanges
        self.entries = entries
        self.line = line
        self.isComplete = isComplete
        self.busyPolls = busyPolls
    }

    // MARK: - CTAP2 views

    /// The CTAP2 request (command byte + CBOR), nil for other kinds.
    public var ctapRequest: [UInt8]? {
        if case .ctap2(let request, _) = kind { return request }
        return nil
    }

    /// The CTAP command, nil for other kinds or an unknown command byte.
    public var ctapCommand: CTAPCommand? {
        ctapRequest?.first.flatMap(CTAPCommand.init(rawValue:))
    }

    /// The CTAP status byte of the response, nil when not a CTAP2 message or no response data.
    public var ctapStatusByte: UInt8? {
        ctapRequest == nil ? nil : response.first
    }

    /// The request's CBOR (after the command byte); nil when there is none. Throws, naming
    /// the line, when the bytes are not CBOR.
    public func requestCBOR() throws(TranscriptError) -> CBORValue? {
        guard let request = ctapRequest, request.count > 1 else { return nil }
        do {
            return try CBORDecoder.decode(request.dropFirst())
        } catch {
            throw TranscriptError(line: line, message: "\(name) request is not valid CBOR: \(error)")
        }
    }

    /// The response's CBOR (after the status byte); nil when there is none. Throws, naming
    /// the line, when the bytes are not CBOR.
    public func responseCBOR() throws(TranscriptError) -> CBORValue? {
        guard ctapRequest != nil, response.count > 1 else { return nil }
        do {
            return try CBORDecoder.decode(response.dropFirst())
        } catch {
            throw TranscriptError(line: line, message: "\(name) response is not valid CBOR: \(error)")
        }
    }

    /// A short name: the CTAP command (with the clientPIN / credentialManagement
    /// subcommand), the U2F or ISO instruction, or the event.
    public var name: String {
        switch kind {
        case .select:
            return "SELECT"
        case .ctap2(let request, _):
            return CTAPNames.commandName(request)
        case .u2f(let instruction, let p1, _, _):
            if instruction == .u2fAuthenticate, let control = CTAPNames.u2fControlName(p1) {
                return "\(instruction.name) (\(control))"
            }
            return instruction.name
        case .apdu(let command):
            guard command.count >= 4 else { return "APDU" }
            let instruction = FIDOInstruction(commandClass: command[0] & ~CommandAPDU.chainingBit, ins: command[1])
            return instruction.map { "\($0.name) APDU" } ?? "APDU"
        case .event(let event):
            return "! \(event.rawValue)"
        }
    }
}
