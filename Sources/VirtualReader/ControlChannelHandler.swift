import ArculusCard
import FIDOWire

/// Runs control-protocol requests against a card (and, for a served card, its reader bridge):
/// the meaning of every request `arculus-card ctl` and `arculus-card image` send.
///
/// One request is a JSON object with an `op` member; the answer is `{"ok": true, …}` or
/// `{"ok": false, "error": "…"}` (a request's `tag` member, if any, is echoed). The requests:
///
/// | op | members | answer members |
/// | --- | --- | --- |
/// | `status` | — | `profile`, `inField`, `onReader`, `timing`, `faults`, `credentials`, `counter`, `pin` |
/// | `tap` | `delay` (seconds, default 1) | `delay` |
/// | `remove` / `insert` | — | — |
/// | `fault.add` | `fault`: `command` (default `any`), `effect`, its parameter, `once` | `fault` |
/// | `fault.list` | — | `faults`, `log` |
/// | `fault.remove` | `id` | — |
/// | `fault.clear` | — | `removed` |
/// | `credentials.list` | — | `credentials` |
/// | `credentials.add` | `credential`: `rpId`, `rpName`, `userId` (base64url) or `userIdHex`, `userName`, `userDisplayName`, `discoverable` (default true), `privateKeyPEM`, `credProtect`, `hmacSecret` | `credential` |
/// | `credentials.remove` | `id` (base64url) or `idHex` | — |
/// | `pin` | `set` (a PIN), `retries` | `pin`: `isSet`, `retries`, `length`, `minLength`, `blocked`, `blockedUntilPowerCycle` |
/// | `counter` | `set` | `counter` |
/// | `timing` | `profile` (`off`, `realistic`) | `timing` |
///
/// Fault effects and their parameter: `ctap-error` (`ctapError`: a number, `"0x2E"` or a name
/// such as `"NO_CREDENTIALS"`), `status-word` (`statusWord`: `"6A82"`), `bogus-signature`,
/// `flags` (`up`, `uv`: booleans), `leave-field` (`away`: seconds, default 1),
/// `fail-next-write`, `decline-presence`.
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
        let request: ControlChannelJSON
        do {
            request = try ControlChannelJSON(parsing: line)
        } catch {
            return Self.failure(error, tag: nil).jsonText
        }
        return handle(request).jsonText
    }

    /// One request in, its answer out.
    public func handle(_ request: ControlChannelJSON) -> ControlChannelJSON {
        let tag = request["tag"]
        let op = request["op"]?.stringValue ?? "?"
        do {
            guard request.objectValue != nil else { throw ControlChannelError.badRequest("a request is a JSON object") }
            var answer = try perform(op, request)
            answer["ok"] = true
            if let tag { answer["tag"] = tag }
            trace?("control: \(op) ok")
            return .object(answer)
        } catch let error as ControlChannelError {
            trace?("control: \(op) failed: \(error)")
            return Self.failure(error, tag: tag)
        } catch {
            trace?("control: \(op) failed: \(error)")
            return Self.failure(.refused(String(describing: error)), tag: tag)
        }
    }

    private static func failure(_ error: ControlChannelError, tag: ControlChannelJSON?) -> ControlChannelJSON {
        var answer: [String: ControlChannelJSON] = ["ok": false, "error": .string(error.description)]
        if let tag { answer["tag"] = tag }
        return .object(answer)
    }

    // MARK: - Requests

    private func perform(_ op: String, _ request: ControlChannelJSON) throws -> [String: ControlChannelJSON] {
        let fields = Fields(request, op: op)
        switch op {
        case "status":
            try fields.allow([])
            let card = try requireCard()
            var answer: [String: ControlChannelJSON] = [
                "profile": .string(card.profile.name), "inField": .bool(card.isInField),
                "timing": .string(card.timing.name), "faults": .int(card.control.faults.count),
                "credentials": .int(card.credentials.count), "counter": .int(card.pinState.signatureCounter),
                "pin": Self.pinJSON(card),
            ]
            if let bridge { answer["onReader"] = .bool(!bridge.isHeldOffReader) }
            return answer
        case "tap":
            try fields.allow(["delay"])
            let delay = try fields.number("delay") ?? 1
            guard (0...3600).contains(delay) else { throw ControlChannelError.badRequest("delay must be 0 to 3600 seconds") }
            try requireBridge().removeAndTap(after: .milliseconds(Int64((delay * 1000).rounded())))
            return ["delay": .number(delay)]
        case "remove":
            try fields.allow([])
            try requireBridge().takeOffReader()
            return [:]
        case "insert":
            try fields.allow([])
            try requireBridge().putOnReader()
            return [:]
        case "fault.add":
            try fields.allow(["fault"])
            let fault = try Self.fault(from: try fields.object("fault", required: true) ?? [:])
            let injected = try requireCard().control.inject(fault)
            return ["fault": Self.faultJSON(injected)]
        case "fault.list":
            try fields.allow([])
            let control = try requireCard().control
            return ["faults": .array(control.faults.map(Self.faultJSON)), "log": .array(control.log.map(Self.logJSON))]
        case "fault.remove":
            try fields.allow(["id"])
            guard let id = try fields.int("id") else { throw ControlChannelError.badRequest("fault.remove needs id") }
            try requireCard().control.removeFault(id: id)
            return [:]
        case "fault.clear":
            try fields.allow([])
            return ["removed": .int(try requireCard().control.clearFaults())]
        case "credentials.list":
            try fields.allow([])
            return ["credentials": .array(try requireCard().credentialRecords.map(Self.credentialJSON))]
        case "credentials.add":
            try fields.allow(["credential"])
            let seed = try Self.seed(from: try fields.object("credential", required: true) ?? [:])
            let record = try requireCard().addCredential(seed)
            return ["credential": Self.credentialJSON(record)]
        case "credentials.remove":
            try fields.allow(["id", "idHex"])
            guard let id = try fields.bytes("id") else { throw ControlChannelError.badRequest("credentials.remove needs id (base64url) or idHex") }
            try requireCard().removeCredential(id: id)
            return [:]
        case "pin":
            try fields.allow(["set", "retries"])
            let card = try requireCard()
            if let pin = try fields.string("set") { try card.setPIN(pin) }
            if let retries = try fields.int("retries") { try card.setPINRetries(retries) }
            return ["pin": Self.pinJSON(card)]
        case "counter":
            try fields.allow(["set"])
            let card = try requireCard()
            if let counter = try fields.int("set") {
                guard let value = UInt32(exactly: counter) else {
                    throw ControlChannelError.badRequest("the counter must be 0 to \(UInt32.max)")
                }
                try card.setSignatureCounter(value)
            }
            return ["counter": .int(card.pinState.signatureCounter)]
        case "timing":
            try fields.allow(["profile"])
            let card = try requireCard()
            if let name = try fields.string("profile") {
                guard let profile = TimingProfile.named(name) else {
                    throw ControlChannelError.badRequest(
                        "unknown timing profile '\(name)' (known: \(TimingProfile.builtIn.map(\.name).joined(separator: ", ")))")
                }
                card.timing = profile
            }
            return ["timing": Self.timingJSON(card.timing)]
        default:
            throw ControlChannelError.badRequest("unknown op '\(op)' (known: \(Self.operations.joined(separator: ", ")))")
        }
    }

    /// Every `op` the handler knows.
    public static let operations = ["status", "tap", "remove", "insert", "fault.add", "fault.list", "fault.remove",
                                    "fault.clear", "credentials.list", "credentials.add", "credentials.remove", "pin",
                                    "counter", "timing"]

    private func requireCard() throws(ControlChannelError) -> VirtualCard {
        guard let card else { throw .refused("there is no emulated card here (a transcript stand-in answers)") }
        return card
    }

    private func requireBridge() throws(ControlChannelError) -> VPCDBridge {
        guard let bridge else { throw .refused("this card is not on a reader (only a served card can be tapped, removed or inserted)") }
        return bridge
    }
}

extension ControlChannelHandler {
    // MARK: - Reading requests

    /// Typed access to a request's members, with errors naming the member.
    struct Fields {
        let members: [String: ControlChannelJSON]
        let context: String

        init(_ value: ControlChannelJSON, op: String) {
            members = value.objectValue ?? [:]
            context = op
        }

        init(object: [String: ControlChannelJSON], context: String) {
            members = object
            self.context = context
        }

        /// Rejects members other than `names` (and `op`, `tag`), so a typo is an error.
        func allow(_ names: Set<String>) throws(ControlChannelError) {
            let unknown = members.keys.filter { !names.contains($0) && $0 != "op" && $0 != "tag" }.sorted()
            guard unknown.isEmpty else {
                throw .badRequest("\(context) has no member \(unknown.joined(separator: ", "))"
                                  + (names.isEmpty ? "" : " (it takes \(names.sorted().joined(separator: ", ")))"))
            }
        }

        private func value(_ name: String) -> ControlChannelJSON? {
            guard let value = members[name], value != .null else { return nil }
            return value
        }

        func string(_ name: String) throws(ControlChannelError) -> String? {
            guard let value = value(name) else { return nil }
            guard let text = value.stringValue else { throw .badRequest("\(context): \(name) must be a string") }
            return text
        }

        func number(_ name: String) throws(ControlChannelError) -> Double? {
            guard let value = value(name) else { return nil }
            guard let number = value.numberValue else { throw .badRequest("\(context): \(name) must be a number") }
            return number
        }

        func int(_ name: String) throws(ControlChannelError) -> Int? {
            guard let value = value(name) else { return nil }
            guard let number = value.intValue else { throw .badRequest("\(context): \(name) must be a whole number") }
            return number
        }

        func bool(_ name: String) throws(ControlChannelError) -> Bool? {
            guard let value = value(name) else { return nil }
            if let flag = value.boolValue { return flag }
            if let number = value.intValue, number == 0 || number == 1 { return number == 1 }
            throw .badRequest("\(context): \(name) must be true or false")
        }

        func object(_ name: String, required: Bool) throws(ControlChannelError) -> [String: ControlChannelJSON]? {
            guard let value = value(name) else {
                if required { throw .badRequest("\(context) needs \(name) (an object)") }
                return nil
            }
            guard let object = value.objectValue else { throw .badRequest("\(context): \(name) must be an object") }
            return object
        }

        /// Bytes from `name` (base64url) or `nameHex`.
        func bytes(_ name: String) throws(ControlChannelError) -> [UInt8]? {
            if let hex = try string(name + "Hex") {
                guard let bytes = [UInt8](hex: hex) else { throw .badRequest("\(context): \(name)Hex is not hex") }
                return bytes
            }
            guard let text = try string(name) else { return nil }
            guard let bytes = ControlChannelBytes.bytes(base64URL: text) else {
                throw .badRequest("\(context): \(name) is not base64url")
            }
            return bytes
        }
    }

    /// A fault from its JSON form.
    static func fault(from object: [String: ControlChannelJSON]) throws -> Fault {
        let fields = Fields(object: object, context: "fault")
        let commandName = try fields.string("command") ?? "any"
        guard let scope = FaultScope(name: commandName) else {
            throw ControlChannelError.badRequest(
                "unknown command '\(commandName)': give a CTAP command (getAssertion, authenticatorMakeCredential, 0x02), "
                    + "u2f-register, u2f-authenticate, select or any")
        }
        guard let effectName = try fields.string("effect") else {
            throw ControlChannelError.badRequest("fault needs effect (\(effectNames.joined(separator: ", ")))")
        }
        let effect: FaultEffect
        var parameters: Set<String> = []
        switch effectName {
        case "ctap-error":
            parameters = ["ctapError"]
            guard let value = fields.members["ctapError"], let byte = ctapStatus(value) else {
                throw ControlChannelError.badRequest("ctap-error needs ctapError: a status byte (46, \"0x2E\") or name (\"NO_CREDENTIALS\")")
            }
            effect = .ctapError(byte)
        case "status-word":
            parameters = ["statusWord"]
            guard let value = fields.members["statusWord"], let word = statusWord(value) else {
                throw ControlChannelError.badRequest("status-word needs statusWord: four hex digits such as \"6A82\"")
            }
            effect = .statusWord(word)
        case "bogus-signature":
            effect = .bogusSignature
        case "flags":
            parameters = ["up", "uv"]
            effect = .flags(userPresent: try fields.bool("up"), userVerified: try fields.bool("uv"))
        case "leave-field":
            parameters = ["away"]
            let away = try fields.number("away") ?? 1
            guard (0...3600).contains(away) else { throw ControlChannelError.badRequest("away must be 0 to 3600 seconds") }
            effect = .leaveField(away: .milliseconds(Int64((away * 1000).rounded())))
        case "fail-next-write":
            effect = .failNextWrite
        case "decline-presence":
            effect = .declinePresence
        default:
            throw ControlChannelError.badRequest("unknown effect '\(effectName)' (\(effectNames.joined(separator: ", ")))")
        }
        try fields.allow(parameters.union(["command", "effect", "once"]))
        return Fault(effect, on: scope, once: try fields.bool("once"))
    }

    static let effectNames = ["ctap-error", "status-word", "bogus-signature", "flags", "leave-field", "fail-next-write",
                              "decline-presence"]

    /// A CTAP status byte from a number, `"0x2E"`, `"46"` or a name (`"CTAP2_ERR_NO_CREDENTIALS"`,
    /// `"NO_CREDENTIALS"`, `"ERR_OTHER"`).
    static func ctapStatus(_ value: ControlChannelJSON) -> UInt8? {
        if let number = value.intValue { return UInt8(exactly: number) }
        guard let text = value.stringValue?.uppercased() else { return nil }
        if text.hasPrefix("0X") { return UInt8(text.dropFirst(2), radix: 16) }
        if let number = UInt8(text) { return number }
        return CTAPStatus.allCases.first { $0.name == text || $0.name.hasSuffix("_" + text) }?.rawValue
    }

    /// A status word from `"6A82"`, `"0x6A82"` or a number.
    static func statusWord(_ value: ControlChannelJSON) -> StatusWord? {
        if let number = value.intValue { return UInt16(exactly: number).map(StatusWord.init(rawValue:)) }
        guard var text = value.stringValue?.uppercased() else { return nil }
        if text.hasPrefix("0X") { text.removeFirst(2) }
        guard text.count == 4, let raw = UInt16(text, radix: 16) else { return nil }
        return StatusWord(rawValue: raw)
    }

    /// A credential to add from its JSON form.
    static func seed(from object: [String: ControlChannelJSON]) throws -> CredentialSeed {
        let fields = Fields(object: object, context: "credential")
        try fields.allow(["rpId", "rpName", "userId", "userIdHex", "userName", "userDisplayName", "discoverable",
                          "privateKeyPEM", "credProtect", "hmacSecret"])
        guard let rpId = try fields.string("rpId") else { throw ControlChannelError.badRequest("credential needs rpId") }
        let user = CredentialUser(id: try fields.bytes("userId") ?? [], name: try fields.string("userName"),
                                  displayName: try fields.string("userDisplayName"))
        let credProtect = try fields.int("credProtect") ?? 1
        guard let level = UInt8(exactly: credProtect) else { throw ControlChannelError.badRequest("credProtect must be 1, 2 or 3") }
        var seed = CredentialSeed(rpId: rpId, rpName: try fields.string("rpName"), user: user,
                                  discoverable: try fields.bool("discoverable") ?? true, credProtect: level,
                                  hmacSecret: try fields.bool("hmacSecret") ?? false)
        if let pem = try fields.string("privateKeyPEM") { try seed.setPrivateKey(pem: pem) }
        return seed
    }

    // MARK: - Writing answers

    static func credentialJSON(_ record: CredentialRecord) -> ControlChannelJSON {
        [
            "id": .string(ControlChannelBytes.base64URL(record.id)), "idHex": .string(record.id.hexString),
            "rpId": .string(record.rpId), "rpName": .optional(record.rpName),
            "userId": .string(ControlChannelBytes.base64URL(record.user.id)), "userIdHex": .string(record.user.id.hexString),
            "userName": .optional(record.user.name), "userDisplayName": .optional(record.user.displayName),
            "discoverable": .bool(record.discoverable), "publicKeyPEM": .string(record.publicKeyPEM),
            "publicKeyHex": .string(record.publicKey.x962.hexString), "credProtect": .int(record.credProtect),
            "hmacSecret": .bool(record.hmacSecret),
        ]
    }

    static func pinJSON(_ card: VirtualCard) -> ControlChannelJSON {
        let state = card.pinState
        return [
            "isSet": .bool(state.isSet), "retries": .int(state.retries), "length": .int(card.authenticator.pinLength),
            "minLength": .int(card.profile.minPINLength), "blocked": .bool(state.isSet && state.retries == 0),
            "blockedUntilPowerCycle": .bool(card.authenticator.isPINAuthBlocked),
        ]
    }

    static func faultJSON(_ injected: InjectedFault) -> ControlChannelJSON {
        var object: [String: ControlChannelJSON] = [
            "id": .int(injected.id), "command": .string(injected.fault.scope.name),
            "effect": .string(injected.fault.effect.name), "once": .bool(injected.fault.once), "hits": .int(injected.hits),
            "description": .string(injected.fault.description),
        ]
        switch injected.fault.effect {
        case .ctapError(let byte): object["ctapError"] = .int(byte)
        case .statusWord(let word): object["statusWord"] = .string(word.description)
        case .flags(let up, let uv):
            object["up"] = up.map { .bool($0) } ?? .null
            object["uv"] = uv.map { .bool($0) } ?? .null
        case .leaveField(let away): object["away"] = .number(seconds(away))
        case .bogusSignature, .failNextWrite, .declinePresence: break
        }
        return .object(object)
    }

    static func logJSON(_ entry: FaultLogEntry) -> ControlChannelJSON {
        ["fault": .int(entry.faultID), "command": .string(entry.command.name), "effect": .string(entry.effect.name),
         "detail": .string(entry.detail), "description": .string(entry.description)]
    }

    static func timingJSON(_ timing: TimingProfile) -> ControlChannelJSON {
        ["name": .string(timing.name), "apduMs": .number(seconds(timing.apdu) * 1000),
         "signatureMs": .number(seconds(timing.signature) * 1000),
         "keyGenerationMs": .number(seconds(timing.keyGeneration) * 1000),
         "pinOperationMs": .number(seconds(timing.pinOperation) * 1000),
         "storageAccessMs": .number(seconds(timing.storageAccess) * 1000), "eraseMs": .number(seconds(timing.erase) * 1000)]
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
