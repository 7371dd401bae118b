import ArculusCard
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
            let answer = try handle(try ControlRequest(json: json)).answer(tag: tag)
            trace?("control: \(op) ok")
            return answer
        } catch {
            trace?("control: \(op) failed: \(error)")
            return error.answer(tag: tag)
        }
    }

    /// One typed request in, its response out; a refusal names why.
    public func handle(_ request: ControlRequest) throws(ControlChannelError) -> ControlResponse {
        do {
            return try perform(request)
        } catch let error as ControlChannelError {
            throw error
        } catch {
            throw .refused(String(describing: error))
        }
    }

    private func perform(_ request: ControlRequest) throws -> ControlResponse {
        switch request {
        case .status:
            return .status(ControlResponse.Status(card: try requireCard(), bridge: bridge))
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
