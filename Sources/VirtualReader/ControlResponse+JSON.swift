import ArculusCard
import FIDOWire
import JSONSupport

/// The control protocol's answer codec: a ``ControlResponse`` written as the members of an `ok`
/// answer, and a failure as `{"ok": false, "error": …}`. Clients read answers as JSON (a fault or
/// its log entry exists only on the card), so this direction is the one there is.
extension ControlResponse {
    /// The answer object: `ok` true, these members, and the request's `tag` if it had one.
    public func answer(tag: JSONValue? = nil) -> JSONValue {
        var members = members
        members["ok"] = true
        if let tag { members["tag"] = tag }
        return .object(members)
    }

    /// The members the response adds to an `ok` answer.
    public var members: [String: JSONValue] {
        switch self {
        case .status(let status):
            var members: [String: JSONValue] = [
                "profile": .string(status.profile), "inField": .bool(status.inField), "timing": .string(status.timing),
                "faults": .int(status.faults), "credentials": .int(status.credentials), "counter": .int(status.counter),
                "pin": status.pin.json, "presence": status.presence.json,
            ]
            if let onReader = status.onReader { members["onReader"] = .bool(onReader) }
            return members
        case .details(let details): return details.members
        case .tapped(let delay): return ["delay": .number(delay)]
        case .done: return [:]
        case .fault(let fault): return ["fault": Self.json(fault)]
        case .faults(let faults, let log): return ["faults": .array(faults.map(Self.json)), "log": .array(log.map(Self.json))]
        case .faultsCleared(let removed): return ["removed": .int(removed)]
        case .credentials(let credentials): return ["credentials": .array(credentials.map(\.json))]
        case .credential(let credential): return ["credential": credential.json]
        case .pin(let pin): return ["pin": pin.json]
        case .counter(let counter): return ["counter": .int(counter)]
        case .timing(let timing): return ["timing": Self.json(timing)]
        case .presence(let presence): return ["presence": presence.json]
        }
    }

    private static func json(_ injected: InjectedFault) -> JSONValue {
        var object = ControlRequest.parameters(of: injected.fault.effect)
        object["id"] = .int(injected.id)
        object["command"] = .string(injected.fault.scope.name)
        object["effect"] = .string(injected.fault.effect.name)
        object["once"] = .bool(injected.fault.once)
        object["hits"] = .int(injected.hits)
        object["description"] = .string(injected.fault.description)
        return .object(object)
    }

    private static func json(_ entry: FaultLogEntry) -> JSONValue {
        ["fault": .int(entry.faultID), "command": .string(entry.command.name), "effect": .string(entry.effect.name),
         "detail": .string(entry.detail), "description": .string(entry.description)]
    }

    private static func json(_ timing: TimingProfile) -> JSONValue {
        func milliseconds(_ duration: Duration) -> JSONValue { .number(ControlRequest.seconds(duration) * 1000) }
        return ["name": .string(timing.name), "apduMs": milliseconds(timing.apdu), "signatureMs": milliseconds(timing.signature),
                "keyGenerationMs": milliseconds(timing.keyGeneration), "pinOperationMs": milliseconds(timing.pinOperation),
                "storageAccessMs": milliseconds(timing.storageAccess), "eraseMs": milliseconds(timing.erase)]
    }
}

extension ControlResponse.PresenceStatus {
    /// `mode`, and `pending`: null or `id`, `command`, `rpId`, `waitingSeconds`.
    public var json: JSONValue {
        let prompt: JSONValue = pending.map { pending in
            ["id": .int(pending.id), "command": .string(pending.prompt.command.name), "rpId": .optional(pending.prompt.rpId),
             "waitingSeconds": .number(ControlRequest.seconds(pending.waiting))]
        } ?? .null
        return ["mode": .string(mode.rawValue), "pending": prompt]
    }
}

extension ControlResponse.PINStatus {
    /// `isSet`, `retries`, `length`, `minLength`, `blocked`, `blockedUntilPowerCycle`.
    public var json: JSONValue {
        ["isSet": .bool(isSet), "retries": .int(retries), "length": .int(length), "minLength": .int(minLength),
         "blocked": .bool(blocked), "blockedUntilPowerCycle": .bool(blockedUntilPowerCycle)]
    }
}

extension CredentialListing {
    /// The credential under the protocol's names (`id`, `idHex`, `rpId`, `rpName`, `userId`,
    /// `userIdHex`, `userName`, `userDisplayName`, `discoverable`, `algorithm` (COSE, e.g. -7),
    /// `algorithmName` ("ES256", "EdDSA", …), `publicKeyPEM`, `publicKeyHex` (an EC key's X9.62
    /// point, an Ed25519 key's 32 bytes, an RSA key's SubjectPublicKeyInfo), `credProtect`,
    /// `hmacSecret`) and WebDriver's (`credentialId`, `isResidentCredential`, `userHandle`,
    /// `privateKey`: base64url PKCS#8 DER or null when unknown, `signCount`).
    public var json: JSONValue {
        let id = Base64URL.encode(record.id)
        let userId = Base64URL.encode(record.user.id)
        let privateKeyDER = privateKey?.pkcs8DER
        return [
            "id": .string(id), "idHex": .string(record.id.hexString), "credentialId": .string(id),
            "rpId": .string(record.rpId), "rpName": .optional(record.rpName),
            "userId": .string(userId), "userIdHex": .string(record.user.id.hexString), "userHandle": .string(userId),
            "userName": .optional(record.user.name), "userDisplayName": .optional(record.user.displayName),
            "discoverable": .bool(record.discoverable), "isResidentCredential": .bool(record.discoverable),
            "algorithm": .int(record.algorithm.rawValue), "algorithmName": .string(record.algorithm.name),
            "publicKeyPEM": .string(record.publicKeyPEM), "publicKeyHex": .string(Self.publicKeyBytes(record.publicKey).hexString),
            "privateKey": .optional(privateKeyDER.map { Base64URL.encode($0) }),
            "credProtect": .int(record.credProtect), "hmacSecret": .bool(record.hmacSecret), "signCount": .int(signCount),
        ]
    }

    /// `publicKeyHex`'s bytes: X9.62 uncompressed for EC2, the raw key for OKP, SPKI for RSA.
    static func publicKeyBytes(_ key: CredentialPublicKey) -> [UInt8] {
        switch key.coseKey {
        case .ec2(_, let x, let y): [0x04] + x + y
        case .okp(_, let x): x
        case .rsa: key.derSubjectPublicKeyInfo
        }
    }
}

extension ControlChannelError {
    /// The failure answer: `ok` false, the error's message, its ``kind`` as `errorKind` when it
    /// has one, and the request's `tag` if it had one.
    public func answer(tag: JSONValue? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["ok": false, "error": .string(description)]
        if let kind { members["errorKind"] = .string(kind) }
        if let tag { members["tag"] = tag }
        return .object(members)
    }
}
