import ArculusCard
import CardCrypto
import FIDOWire
import JSONSupport

/// The control protocol's request codec: a request object in, a ``ControlRequest`` out, and back.
/// Every member is checked (type, range, unknown names), so a typo is an error naming it.
extension ControlRequest {
    /// Reads a request object (its `op` selects the case; `tag` is the caller's and ignored).
    public init(json: JSONValue) throws(ControlChannelError) {
        guard let members = json.objectValue else { throw .badRequest("a request is a JSON object") }
        let op = members["op"]?.stringValue ?? "?"
        let fields = ControlChannelFields(members, context: op)
        func bare(_ request: ControlRequest) throws(ControlChannelError) -> ControlRequest {
            try fields.allow([])
            return request
        }
        switch op {
        case "status": self = try bare(.status)
        case "details": self = try bare(.details)
        case "remove": self = try bare(.remove)
        case "insert": self = try bare(.insert)
        case "fault.list": self = try bare(.listFaults)
        case "fault.clear": self = try bare(.clearFaults)
        case "credentials.list": self = try bare(.listCredentials)
        case "tap":
            try fields.allow(["delay"])
            self = .tap(delay: try fields.seconds("delay") ?? 1)
        case "fault.add":
            try fields.allow(["fault"])
            self = .addFault(try Self.fault(ControlChannelFields(try fields.object("fault", required: true) ?? [:], context: "fault")))
        case "fault.remove":
            try fields.allow(["id"])
            guard let id = try fields.int("id") else { throw .badRequest("fault.remove needs id") }
            self = .removeFault(id: id)
        case "credentials.add":
            try fields.allow(["credential"])
            self = .addCredential(try CredentialParameters(json: .object(try fields.object("credential", required: true) ?? [:])))
        case "credentials.remove":
            try fields.allow(["id", "idHex"])
            guard let id = try fields.bytes("id") else { throw .badRequest("credentials.remove needs id (base64url) or idHex") }
            self = .removeCredential(id: id)
        case "pin":
            try fields.allow(["set", "retries", "clear"])
            let pin = try fields.string("set")
            let retries = try fields.int("retries")
            guard try fields.bool("clear") == true else {
                self = .pin(set: pin, retries: retries)
                break
            }
            guard pin == nil else { throw .badRequest("pin: clear and set go separately (clear removes the PIN, set gives a new one)") }
            self = .clearPIN(retries: retries)
        case "presence":
            try fields.allow(["mode"])
            self = .presence(mode: try fields.string("mode").map { name throws(ControlChannelError) in
                guard let mode = PresenceMode(rawValue: name) else {
                    throw .badRequest("unknown presence mode '\(name)' (known: \(PresenceMode.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return mode
            })
        case "presence.answer":
            try fields.allow(["id", "approve"])
            guard let id = try fields.int("id"), let approve = try fields.bool("approve") else {
                throw .badRequest("presence.answer needs id (the prompt's number) and approve (true or false)")
            }
            self = .answerPresence(id: id, approve: approve)
        case "counter":
            try fields.allow(["set"])
            self = .counter(set: try fields.uint32("set", what: "the counter"))
        case "timing":
            try fields.allow(["profile"])
            self = .timing(try fields.string("profile").map { name throws(ControlChannelError) in
                guard let profile = TimingProfile.named(name) else {
                    throw .badRequest("unknown timing profile '\(name)' (known: \(TimingProfile.builtIn.map(\.name).joined(separator: ", ")))")
                }
                return profile
            })
        default:
            throw .badRequest("unknown op '\(op)' (known: \(Self.operations.joined(separator: ", ")))")
        }
    }

    /// The request object (``init(json:)`` reads it back as this request). Timing profiles go by
    /// name, so only built-in ones round-trip.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["op": .string(op)]
        switch self {
        case .status, .details, .remove, .insert, .listFaults, .clearFaults, .listCredentials: break
        case .tap(let delay): members["delay"] = .number(delay)
        case .addFault(let fault):
            var object = Self.parameters(of: fault.effect)
            object["command"] = .string(fault.scope.name)
            object["effect"] = .string(fault.effect.name)
            object["once"] = .bool(fault.once)
            members["fault"] = .object(object)
        case .removeFault(let id): members["id"] = .integer(id)
        case .addCredential(let credential): members["credential"] = credential.json
        case .removeCredential(let id): members["id"] = .string(Base64URL.encode(id))
        case .pin(let pin, let retries):
            if let pin { members["set"] = .string(pin) }
            if let retries { members["retries"] = .integer(retries) }
        case .counter(let counter): if let counter { members["set"] = .int(counter) }
        case .timing(let profile): if let profile { members["profile"] = .string(profile.name) }
        case .clearPIN(let retries):
            members["clear"] = true
            if let retries { members["retries"] = .integer(retries) }
        case .presence(let mode): if let mode { members["mode"] = .string(mode.rawValue) }
        case .answerPresence(let id, let approve):
            members["id"] = .integer(id)
            members["approve"] = .bool(approve)
        }
        return .object(members)
    }

    // MARK: - Faults

    /// The effects' names, for messages.
    static let effectNames = ["ctap-error", "status-word", "bogus-signature", "flags", "leave-field", "fail-next-write",
                              "decline-presence", "delay"]

    private static func fault(_ fields: ControlChannelFields) throws(ControlChannelError) -> Fault {
        let commandName = try fields.string("command") ?? "any"
        guard let scope = FaultScope(name: commandName) else {
            throw .badRequest("unknown command '\(commandName)': give a CTAP command (getAssertion, authenticatorMakeCredential, 0x02), "
                              + "u2f-register, u2f-authenticate, select, apdu:HEX (one exact APDU) or any")
        }
        guard let effectName = try fields.string("effect") else {
            throw .badRequest("fault needs effect (\(effectNames.joined(separator: ", ")))")
        }
        let effect: FaultEffect
        var parameters: Set<String> = []
        switch effectName {
        case "ctap-error":
            parameters = ["ctapError"]
            guard let byte = fields.value("ctapError").flatMap(ctapStatus) else {
                throw .badRequest("ctap-error needs ctapError: a status byte (46, \"0x2E\") or name (\"NO_CREDENTIALS\")")
            }
            effect = .ctapError(byte)
        case "status-word":
            parameters = ["statusWord"]
            guard let word = fields.value("statusWord").flatMap(statusWord) else {
                throw .badRequest("status-word needs statusWord: four hex digits such as \"6A82\"")
            }
            effect = .statusWord(word)
        case "bogus-signature": effect = .bogusSignature
        case "flags":
            parameters = ["up", "uv"]
            effect = .flags(userPresent: try fields.bool("up"), userVerified: try fields.bool("uv"))
        case "leave-field":
            parameters = ["away"]
            effect = .leaveField(away: .milliseconds(Int64(((try fields.seconds("away") ?? 1) * 1000).rounded())))
        case "fail-next-write": effect = .failNextWrite
        case "decline-presence": effect = .declinePresence
        case "delay":
            parameters = ["delay"]
            guard let seconds = try fields.seconds("delay") else { throw .badRequest("delay needs delay: seconds (e.g. 0.2)") }
            effect = .delay(.milliseconds(Int64((seconds * 1000).rounded())))
        default:
            throw .badRequest("unknown effect '\(effectName)' (\(effectNames.joined(separator: ", ")))")
        }
        try fields.allow(parameters.union(["command", "effect", "once"]))
        return Fault(effect, on: scope, once: try fields.bool("once"))
    }

    /// An effect's parameter members, as requests and answers write them.
    static func parameters(of effect: FaultEffect) -> [String: JSONValue] {
        switch effect {
        case .ctapError(let byte): ["ctapError": .int(byte)]
        case .statusWord(let word): ["statusWord": .string(word.description)]
        case .flags(let up, let uv): ["up": up.map(JSONValue.bool) ?? .null, "uv": uv.map(JSONValue.bool) ?? .null]
        case .leaveField(let away): ["away": .number(seconds(away))]
        case .delay(let extra): ["delay": .number(seconds(extra))]
        case .bogusSignature, .failNextWrite, .declinePresence: [:]
        }
    }

    /// A CTAP status byte from a number, `"0x2E"`, `"46"` or a name (`"CTAP2_ERR_NO_CREDENTIALS"`,
    /// `"NO_CREDENTIALS"`, `"ERR_OTHER"`).
    public static func ctapStatus(_ value: JSONValue) -> UInt8? {
        if let number = value.intValue { return UInt8(exactly: number) }
        guard let text = value.stringValue?.uppercased() else { return nil }
        if text.hasPrefix("0X") { return UInt8(text.dropFirst(2), radix: 16) }
        if let number = UInt8(text) { return number }
        return CTAPStatus.allCases.first { $0.name == text || $0.name.hasSuffix("_" + text) }?.rawValue
    }

    /// A status word from `"6A82"`, `"0x6A82"` or a number.
    public static func statusWord(_ value: JSONValue) -> StatusWord? {
        if let number = value.intValue { return UInt16(exactly: number).map(StatusWord.init(rawValue:)) }
        guard var text = value.stringValue?.uppercased() else { return nil }
        if text.hasPrefix("0X") { text.removeFirst(2) }
        guard text.count == 4, let raw = UInt16(text, radix: 16) else { return nil }
        return StatusWord(rawValue: raw)
    }

    /// A duration in seconds, as the protocol writes times.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

// MARK: - Credentials

extension CredentialParameters {
    /// Every member a credential to add may have: the protocol's names and WebDriver's.
    static let members: Set<String> = [
        "rpId", "rpName", "userId", "userIdHex", "userHandle", "userName", "userDisplayName", "discoverable",
        "isResidentCredential", "privateKeyPEM", "privateKey", "algorithm", "credProtect", "hmacSecret", "signCount",
        "credentialId",
    ]

    /// Reads a credential object, in the protocol's names or WebDriver's (synonyms that disagree
    /// are an error, as is a key given both as `privateKeyPEM` and `privateKey`).
    public init(json: JSONValue) throws(ControlChannelError) {
        guard let members = json.objectValue else { throw .badRequest("a credential is a JSON object") }
        let fields = ControlChannelFields(members, context: "credential")
        try fields.allow(Self.members)
        guard let rpId = try fields.string("rpId") else { throw .badRequest("credential needs rpId") }
        let userId = try fields.either("userId", "userHandle") { name throws(ControlChannelError) in
            name == "userId" ? try fields.bytes(name) : try fields.base64URL(name)
        }
        let user = CredentialUser(id: userId ?? [], name: try fields.string("userName"),
                                  displayName: try fields.string("userDisplayName"))
        let credProtect = try fields.int("credProtect") ?? 1
        guard let level = UInt8(exactly: credProtect) else { throw .badRequest("credProtect must be 1, 2 or 3") }
        let discoverable = try fields.either("discoverable", "isResidentCredential", fields.bool)
        var seed = CredentialSeed(rpId: rpId, rpName: try fields.string("rpName"), user: user,
                                  discoverable: discoverable ?? true, credProtect: level,
                                  hmacSecret: try fields.bool("hmacSecret") ?? false)
        let algorithm = try Self.algorithm(fields)
        if let algorithm { seed.algorithm = algorithm }
        if let key = try Self.privateKey(fields) {
            if let algorithm, algorithm != key.algorithm {
                throw .badRequest("credential: algorithm is \(algorithm.name) but the private key is \(key.algorithm.name)")
            }
            seed.privateKey = key
            seed.algorithm = key.algorithm
        }
        self.init(seed, signCount: try fields.uint32("signCount", what: "credential: signCount"),
                  credentialId: try fields.base64URL("credentialId"))
    }

    /// `algorithm`: a COSE number (-8) or a name ("EdDSA"), for a key the card draws.
    private static func algorithm(_ fields: ControlChannelFields) throws(ControlChannelError) -> SignatureAlgorithm? {
        let given: String?
        do throws(ControlChannelError) {
            given = try fields.int("algorithm").map(String.init)
        } catch {
            given = try fields.string("algorithm")
        }
        guard let given else { return nil }
        guard let algorithm = SignatureAlgorithm(name: given) else {
            throw .badRequest("credential: algorithm '\(given)' is none of \(SignatureAlgorithm.allCases.map(\.name).joined(separator: ", "))")
        }
        return algorithm
    }

    /// `privateKeyPEM` or WebDriver's `privateKey` (base64url PKCS#8 DER), of any algorithm.
    private static func privateKey(_ fields: ControlChannelFields) throws(ControlChannelError) -> CredentialPrivateKey? {
        let pem = try fields.string("privateKeyPEM")
        let der = try fields.base64URL("privateKey")
        switch (pem, der) {
        case (nil, nil):
            return nil
        case (let pem?, nil):
            guard let key = try? CredentialPrivateKey(pemPKCS8: pem) else {
                throw .badRequest("credential: privateKeyPEM is not an unencrypted private key in PEM (PKCS#8, or SEC 1 for P-256)")
            }
            return key
        case (nil, let der?):
            guard let key = try? CredentialPrivateKey(pkcs8DER: der) else {
                throw .badRequest("credential: privateKey is not base64url of an unencrypted PKCS#8 (DER) private key")
            }
            return key
        case (.some, .some):
            throw .badRequest("credential: privateKeyPEM and privateKey are the same key: give one")
        }
    }

    /// The credential object (``init(json:)`` reads it back equal); the key as `privateKey`.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "rpId": .string(seed.rpId), "rpName": .optional(seed.rpName), "userId": .string(Base64URL.encode(seed.user.id)),
            "userName": .optional(seed.user.name), "userDisplayName": .optional(seed.user.displayName),
            "discoverable": .bool(seed.discoverable), "credProtect": .int(seed.credProtect), "hmacSecret": .bool(seed.hmacSecret),
            "algorithm": .int(seed.keyAlgorithm.rawValue),
        ]
        if let key = seed.privateKey { members["privateKey"] = .string(Base64URL.encode(key.pkcs8DER)) }
        if let signCount { members["signCount"] = .int(signCount) }
        if let credentialId { members["credentialId"] = .string(Base64URL.encode(credentialId)) }
        return .object(members)
    }
}
