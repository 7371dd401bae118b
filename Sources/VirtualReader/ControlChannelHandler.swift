import ArculusCard
import CTAP2
import FIDOWire
import JSONSupport

/// Runs control-protocol requests against a card (and, for a served card, its reader bridge):
/// the meaning of every ``ControlRequest`` `arculus-card ctl` sends. The requests, their JSON
/// and their answers are listed in ``ControlRequest``.
///
/// Not thread-safe: call it on the thread that drives the card (``ControlChannel`` does).
public final class ControlChannelHandler: @unchecked Sendable {
    // Sendability: the card is not thread-safe. The handler is only ever called on the card's
    // thread: the control channel hands each request to the bridge thread, between two APDUs.

    /// The card the requests act on; nil for a stand-in that is no emulated card.
    public let card: VirtualCard?
    /// The bridge for `tap`, `remove` and `insert`; nil for a card that is not on a reader.
    public let bridge: VPCDBridge?
    /// Called with one line per request (its op and outcome; never a PIN), for a trace.
    public var trace: ((String) -> Void)?
    /// Called with one line for each request that moves the card on or off its reader (`tap`,
    /// `remove`, `insert`), in place of its trace line: a state change a log shows always.
    public var log: ((String) -> Void)?

    /// A handler for `card`, on the reader behind `bridge` if any.
    public init(card: VirtualCard?, bridge: VPCDBridge?) {
        self.card = card
        self.bridge = bridge
    }

    /// One request line in, one answer line out.
    public func respond(to line: String) -> String {
        do throws(JSONValue.ParseError) {
            return handle(try JSONValue(parsing: line)).text
        } catch {
            return ControlChannelError.badRequest(error.description).answer().text
        }
    }

    /// One request object in, its answer out (a request's `tag` is echoed).
    public func handle(_ json: JSONValue) -> JSONValue {
        let tag = json["tag"]
        let op = json["op"]?.stringValue ?? "?"
        do throws(ControlChannelError) {
            let request = try ControlRequest(json: json)
            // The ID as the request spelled it, to echo in a "no such credential".
            let spelledID = json["idHex"]?.stringValue.map { (text: $0, form: "hex") }
                ?? json["id"]?.stringValue.map { (text: $0, form: "base64url") }
            let answer = try handle(request, spelledID: spelledID).answer(tag: tag)
            if let log, let line = Self.logLine(request) { log(line) } else { trace?("control: \(op) ok") }
            return answer
        } catch {
            trace?("control: \(op) failed: \(error)")
            return error.answer(tag: tag)
        }
    }

    /// One typed request in, its response out; a refusal names why.
    public func handle(_ request: ControlRequest) throws(ControlChannelError) -> ControlResponse {
        try handle(request, spelledID: nil)
    }

    private func handle(_ request: ControlRequest, spelledID: (text: String, form: String)?) throws(ControlChannelError) -> ControlResponse {
        do {
            return try perform(request)
        } catch let error as ControlChannelError {
            throw error
        } catch StateControlError.noSuchCredential(let id) {
            let asked = spelledID.map { "'\($0.text)' (read as \($0.form): \(id.count) bytes\($0.form == "hex" ? "" : ", hex \(id.hexString)"))" }
                ?? "\(Base64URL.encode(id)) (hex \(id.hexString))"
            throw .refused("no discoverable credential on the card has the ID \(asked); "
                           + "non-discoverable credentials are not stored on the card, so they cannot be removed")
        } catch {
            throw .refused(String(describing: error))
        }
    }

    /// The log line of a request that moves the card on or off its reader.
    private static func logLine(_ request: ControlRequest) -> String? {
        switch request {
        case .tap(let delay):
            "control: tap: the card leaves the reader and is back after \(VPCDBridge.DisconnectReason.seconds(.milliseconds(Int64((delay * 1000).rounded()))))"
        case .remove: "control: remove: the card is off the reader until 'insert'"
        case .insert: "control: insert: the card is put back on the reader"
        default: nil
        }
    }

    private func perform(_ request: ControlRequest) throws -> ControlResponse {
        switch request {
        case .status:
            return .status(ControlResponse.Status(card: try requireCard(), bridge: bridge))
        case .details:
            return .details(ControlResponse.Details(card: try requireCard(), bridge: bridge))
        case .tap(let delay):
            try requireBridge().removeAndTap(after: .milliseconds(Int64((delay * 1000).rounded())))
            return .tapped(delay: delay)
        case .remove:
            try requireBridge().takeOffReader()
            return .done
        case .insert:
            try requireBridge().putOnReader()
            return .done
        case .addFault(let fault):
            return .fault(try requireCard().control.inject(fault))
        case .listFaults:
            let control = try requireCard().control
            return .faults(control.faults, log: control.log)
        case .removeFault(let id):
            try requireCard().control.removeFault(id: id)
            return .done
        case .clearFaults:
            return .faultsCleared(try requireCard().control.clearFaults())
        case .listCredentials:
            return .credentials(try requireCard().credentialListings)
        case .addCredential(let parameters):
            return .credential(try requireCard().add(parameters))
        case .removeCredential(let id):
            try requireCard().removeCredential(id: id)
            return .done
        case .pin(let pin, let retries):
            let card = try requireCard()
            if let pin { try card.setPIN(pin) }
            if let retries { try card.setPINRetries(retries) }
            return .pin(ControlResponse.PINStatus(card: card))
        case .counter(let counter):
            let card = try requireCard()
            if let counter { try card.setSignatureCounter(counter) }
            return .counter(card.pinState.signatureCounter)
        case .timing(let profile):
            let card = try requireCard()
            if let profile { card.timing = profile }
            return .timing(card.timing)
        case .clearPIN(let retries):
            let card = try requireCard()
            try card.clearPIN()
            if let retries { try card.setPINRetries(retries) }
            return .pin(ControlResponse.PINStatus(card: card))
        case .presence(let mode):
            let card = try requireCard()
            if let mode { card.presenceMode = mode }
            return .presence(ControlResponse.PresenceStatus(card: card))
        case .answerPresence(let id, let approve):
            let card = try requireCard()
            try card.answerPresence(id: id, approve: approve)
            return .presence(ControlResponse.PresenceStatus(card: card))
        }
    }

    private func requireCard() throws(ControlChannelError) -> VirtualCard {
        guard let card else { throw .refused("there is no emulated card here (a transcript stand-in answers)") }
        return card
    }

    private func requireBridge() throws(ControlChannelError) -> VPCDBridge {
        guard let bridge else { throw .refused("this card is not on a reader (only a served card can be tapped, removed or inserted)") }
        return bridge
    }
}
