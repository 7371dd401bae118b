import CBOR
import CTAPClient
import FIDOWire
import JSONSupport

/// What the entries of one probe share: the wire, the rules for keeping answers, and what the
/// writing part carries from one entry to the next (credentials it made, the PIN it set).
final class ProbeSession {
    let link: ProbeLink
    let shape: ResponseShape
    /// State the writing part's sequences carry between entries.
    var carried: CarriedState
    /// The shape of getInfo's body when the probe began: other entries that read getInfo keep
    /// only how theirs differs from it.
    var getInfoBaseline: JSONValue?

    init(link: ProbeLink, pins: ProbePINs) {
        self.link = link
        carried = CarriedState(pins: pins)
        shape = ResponseShape(context: ShapeContext(rpIDs: [ProbeValues.rpID, ProbeValues.otherRPID]))
    }

    /// Sends one APDU as it is and keeps the answer as it came (no `61xx` followed).
    func apdu(_ bytes: [UInt8], kind: String? = nil) throws(ProbeInterruption) -> ProbeRecord {
        let answer = try timed(kind) { () throws(ProbeInterruption) in try link.transmit(bytes) }
        return ProbeRecord(request: ["apdu": .string(Hex.string(bytes))], answer: AnswerShape.apdu(answer))
    }

    /// Sends APDUs in order, each as it is; keeps every answer.
    func apdus(_ sequence: [[UInt8]]) throws(ProbeInterruption) -> ProbeRecord {
        var answers: [JSONValue] = []
        for bytes in sequence { answers.append(AnswerShape.apdu(try link.transmit(bytes))) }
        return ProbeRecord(request: ["apdus": .array(sequence.map { .string(Hex.string($0)) })], answer: .array(answers))
    }

    /// Sends a CTAP message with the NFC framing; the request is kept as its APDUs (hex) when
    /// it holds nothing random, else as `shown`.
    func message(_ message: [UInt8], shown: JSONValue? = nil, kind: String? = nil,
                 p1: UInt8 = NFCBinding.messageSupportsGetResponse, pieceSize: Int = 255) throws(ProbeInterruption) -> ProbeRecord {
        let answer = try timed(kind) { () throws(ProbeInterruption) in try link.message(message, p1: p1, pieceSize: pieceSize) }
        let command = message.first.flatMap(CTAPCommand.init(rawValue:))
        let request: JSONValue
        if let shown {
            request = shown
        } else {
            let apdus = NFCHostFraming.messageAPDUs(message, p1: p1, pieceSize: pieceSize)
            if apdus.count == 1 {
                request = ["apdu": .string(Hex.string(apdus[0]))]
            } else if message.count <= Self.longestShownMessage {
                request = ["apdus": .array(apdus.map { .string(Hex.string($0)) })]
            } else {
                request = ["message": .string("\(message.count) bytes in \(apdus.count) chained APDUs")]
            }
        }
        return ProbeRecord(request: request, answer: AnswerShape.message(answer, command: command, shape: shape))
    }

    /// A typed CTAP command; `random` when the parameters hold values drawn for this run (the
    /// request is then kept as its shape).
    func ctap(_ command: CTAPCommand, _ parameters: CBORMap?, random: Bool = false,
              kind: String? = nil) throws(ProbeInterruption) -> ProbeRecord {
        let message = CTAPMessage.bytes(command, parameters)
        let shown: JSONValue? = random ? .some(CTAPMessage.shape(command, parameters)) : .none
        return try self.message(message, shown: shown, kind: kind)
    }

    /// A typed CTAP command whose request holds values drawn for this run: the record (the
    /// request as its shape) and the reply, for sequences that read values from it.
    func kept(_ command: CTAPCommand, _ parameters: CBORMap?, kind: String? = nil) throws(ProbeInterruption) -> (ProbeRecord, CTAPReply) {
        let reply = try timed(kind) { () throws(ProbeInterruption) in try exchange(command, parameters) }
        let record = ProbeRecord(request: CTAPMessage.shape(command, parameters),
                                 answer: AnswerShape.message(reply.exchange, command: command, shape: shape))
        return (record, reply)
    }

    /// getInfo again: its body kept as how it differs from the getInfo the probe began with
    /// (`as at the start` when it does not).
    func getInfoAgain(_ record: ProbeRecord) -> ProbeRecord {
        guard let baseline = getInfoBaseline, case .object(var answer) = record.answer, let body = answer["body"] else { return record }
        answer["body"] = Self.delta(body, from: baseline) ?? "as at the start"
        return ProbeRecord(request: record.request, answer: .object(answer))
    }

    /// The members of `value` that differ from `baseline` (absent ones as `absent`), nil when none do.
    static func delta(_ value: JSONValue, from baseline: JSONValue) -> JSONValue? {
        guard value != baseline else { return nil }
        guard case .object(let new) = value, case .object(let old) = baseline else { return value }
        var changed: [String: JSONValue] = [:]
        for key in Set(new.keys).union(old.keys) {
            switch (new[key], old[key]) {
            case (let a?, let b?): if let difference = delta(a, from: b) { changed[key] = difference }
            case (let a?, nil): changed[key] = a
            case (nil, _?): changed[key] = "absent"
            case (nil, nil): break
            }
        }
        return .object(changed)
    }

    /// The raw answer of a typed CTAP command, for sequences that read values from it.
    func exchange(_ command: CTAPCommand, _ parameters: CBORMap?) throws(ProbeInterruption) -> CTAPReply {
        CTAPReply(try link.message(CTAPMessage.bytes(command, parameters)))
    }

    /// The longest chained message whose APDUs a fingerprint spells out in hex.
    static let longestShownMessage = 300

    private func timed<T>(_ kind: String?, _ body: () throws(ProbeInterruption) -> T) throws(ProbeInterruption) -> T {
        guard let kind else { return try body() }
        return try link.timed(kind, body)
    }
}

/// A CTAP answer read for its values: the status and the decoded body.
struct CTAPReply {
    let exchange: MessageAnswer
    let status: CTAPStatus?
    let body: CBORMap?

    init(_ exchange: MessageAnswer) {
        self.exchange = exchange
        let data = exchange.answer.data
        if exchange.answer.statusWord == StatusWord.success.rawValue, let first = data.first {
            status = CTAPStatus(rawValue: first)
            body = data.count > 1 ? (try? CBORDecoder.decode(data.dropFirst()))?.mapValue : nil
        } else {
            status = nil
            body = nil
        }
    }

    var isOK: Bool { status == .ok }

    /// What went wrong, in a few words, for an entry that could not go on.
    var failure: String {
        if let status { return status.name }
        return "status word " + (exchange.answer.statusWord.map(Hex.word) ?? "none")
    }
}

/// A CTAP request's bytes and its shape in a fingerprint.
enum CTAPMessage {
    static func bytes(_ command: CTAPCommand, _ parameters: CBORMap?) -> [UInt8] {
        [command.rawValue] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
    }

    /// `{"command": "authenticatorClientPIN", "parameters": {...}}` with the members named.
    static func shape(_ command: CTAPCommand, _ parameters: CBORMap?) -> JSONValue {
        var object: [String: JSONValue] = ["command": .string(command.name)]
        if let parameters {
            object["parameters"] = CBORShape.of(.map(parameters), names: { command.requestMemberName($0) })
        }
        return .object(object)
    }
}
