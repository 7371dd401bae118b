import JSONSupport
import VirtualReader

/// One served card as the card page reaches it: its name, its feed of trace rows, the control
/// operations `ctl` uses (a ``VirtualReader/ControlChannelHandler`` of its own), where those run
/// (the card's thread, between two APDUs), and its session so far as a transcript.
public struct CardPageCard: Sendable {
    /// How the page names it (its reader).
    public var name: String
    /// Runs work on the card's thread (for a served card, ``VirtualReader/VPCDBridge/perform(_:)``).
    public var executor: ControlChannel.Executor
    /// Runs the page's ops: the control channel's handler, with the trace and log of `serve`.
    public var handler: ControlChannelHandler
    /// The session so far in the transcript format, on the card's thread; nil when nothing records it.
    public var transcript: (@Sendable () -> String)?

    public init(name: String, executor: @escaping ControlChannel.Executor, handler: ControlChannelHandler,
                transcript: (@Sendable () -> String)?) {
        self.name = name
        self.executor = executor
        self.handler = handler
        self.transcript = transcript
    }

    /// What the page shows of the card now (on the card's thread): the `details` answer, and
    /// the `presence` answer where the card has that op (null where it does not). Read through
    /// a handler of its own that traces nothing: the page asks up to ten times a second.
    static func snapshot(_ viewer: ControlChannelHandler, card index: Int) -> String {
        let details = viewer.handle(["op": "details"])
        let presence = viewer.handle(["op": "presence"])
        let answered = presence["ok"]?.boolValue == true ? presence["presence"] ?? .null : .null
        return JSONValue.object(["card": .int(index + 1), "details": details, "presence": answered]).text
    }

    /// Whether a ``snapshot(_:card:)`` says the card asks the person about each test of presence
    /// (presence mode `ask`), when a prompt may start at any moment.
    static func asksForPresence(_ snapshot: String) -> Bool {
        (try? JSONValue(parsing: snapshot))?["presence"]?["mode"]?.stringValue == "ask"
    }

    /// `answer` without the members that would hand the page a key: `credentials.list` and
    /// `credentials.add` answer a credential's private key, which the page never gets.
    static func withoutSecrets(_ answer: JSONValue) -> JSONValue {
        switch answer {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (name, value) in members where !secretMembers.contains(name) { kept[name] = withoutSecrets(value) }
            return .object(kept)
        case .array(let items):
            return .array(items.map(withoutSecrets))
        default:
            return answer
        }
    }

    /// Members of control answers that carry key material.
    static let secretMembers: Set<String> = ["privateKey", "privateKeyPEM"]
}
