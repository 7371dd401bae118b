import CBOR
import FIDOWire

@testable import CTAP2

/// What a command reads inside a request — extension inputs, the hmac-secret salts,
/// subCommandParams — through a tree, and the comparison of every reading of a request with the
/// card's (``disagreement(_:profile:)``).
extension TreeReading {
    /// The extension inputs as the tree reading saw them, the hmac-secret inputs as trees.
    struct ExtensionInputs: Equatable {
        var fields: [String: CBORValue] = [:]
    }

    /// makeCredential's extensions map: only what `profile` offers, in the order of CTAP 2.1 §12.
    static func makeCredentialExtensions(_ extensions: CBORMap, profile: CardProfile) -> Result<ExtensionInputs, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let offered = try offeredInputs(extensions, profile: profile)
            var inputs = ExtensionInputs()
            if let level = try offered.unsigned("credProtect"), (1...3).contains(level) { inputs.fields["credProtect"] = .unsigned(level) }
            inputs.fields["hmac-secret"] = .bool(try offered.bool("hmac-secret") ?? false)
            inputs.fields["hmac-secret-mc"] = try offered.map("hmac-secret-mc")
            inputs.fields["credBlob"] = try offered.bytes("credBlob").map { .bytes($0) }
            inputs.fields["largeBlobKey"] = .bool(try offered.onlyTrue("largeBlobKey"))
            inputs.fields["minPinLength"] = .bool(try offered.bool("minPinLength") ?? false)
            inputs.fields["thirdPartyPayment"] = .bool(try offered.bool("thirdPartyPayment") ?? false)
            return inputs
        }
    }

    /// getAssertion's extensions map.
    static func getAssertionExtensions(_ extensions: CBORMap, profile: CardProfile) -> Result<ExtensionInputs, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let offered = try offeredInputs(extensions, profile: profile)
            var inputs = ExtensionInputs()
            inputs.fields["hmac-secret"] = try offered.map("hmac-secret")
            inputs.fields["credBlob"] = .bool(try offered.bool("credBlob") ?? false)
            inputs.fields["largeBlobKey"] = .bool(try offered.onlyTrue("largeBlobKey"))
            inputs.fields["thirdPartyPayment"] = .bool(try offered.bool("thirdPartyPayment") ?? false)
            return inputs
        }
    }

    /// An hmac-secret input: keyAgreement, saltEnc, saltAuth required, in that order.
    static func hmacSecretSalts(_ input: CBORValue) -> Result<HMACSecretSalts, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let map = try TreeMap<HMACSecretInputKey>(value: input)
            guard let keyAgreement = map[.keyAgreement] else { throw .missingParameter }
            return HMACSecretSalts(keyAgreement: keyAgreement, saltEnc: try map.requiredBytes(.saltEnc),
                                   saltAuth: try map.requiredBytes(.saltAuth), pinUvAuthProtocol: try map.unsigned(.pinUvAuthProtocol))
        }
    }

    /// setMinPINLength's subCommandParams.
    static func setMinPINLength(_ parameters: CBORValue) -> Result<SetMinPINLengthParameters, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let map = try TreeMap<SetMinPINLengthKey>(value: parameters)
            var result = SetMinPINLengthParameters()
            result.newMinPINLength = try map.unsigned(.newMinPINLength).map { Int(clamping: $0) }
            if let list = try map.array(.minPinLengthRPIDs) {
                var rpIDs: [String] = []
                for item in list {
                    guard case .text(let rpId) = item else { throw .cborUnexpectedType }
                    rpIDs.append(rpId)
                }
                result.minPinLengthRPIDs = rpIDs
            }
            if let force = map[.forceChangePin] {
                guard case .bool(let flag) = force else { throw .cborUnexpectedType }
                result.forceChangePin = flag
            }
            return result
        }
    }

    /// credentialManagement's subCommandParams, each member as the subcommand that takes it
    /// reads it: rpIDHash, credentialID, user.
    static func credentialManagementParameters(_ parameters: CBORValue) -> [Result<String, CTAPStatus>] {
        let map = Result { () throws(CTAPStatus) in try TreeMap<CredentialManagementParameterKey>(value: parameters) }
        return [
            map.flatMap { map in Result { () throws(CTAPStatus) in "\(try map.requiredBytes(.rpIDHash))" } },
            map.flatMap { map in Result { () throws(CTAPStatus) in
                guard let value = map[.credentialID] else { throw .missingParameter }
                return "\(try descriptor(value))"
            } },
            map.flatMap { map in Result { () throws(CTAPStatus) in "\(try user(try map.requiredEntity(.user)))" } },
        ]
    }

    private static func offeredInputs(_ extensions: CBORMap, profile: CardProfile) throws(CTAPStatus) -> TreeEntity {
        try TreeEntity(value: .map(CBORMap(extensions.entries.filter { $0.key.textValue.map(profile.offers) ?? false })))
    }
}

extension TreeEntity {
    func unsigned(_ key: String) throws(CTAPStatus) -> UInt64? {
        guard let value = map[text: key] else { return nil }
        guard case .unsigned(let number) = value else { throw .cborUnexpectedType }
        return number
    }

    func map(_ key: String) throws(CTAPStatus) -> CBORValue? {
        guard let value = map[text: key] else { return nil }
        guard case .map = value else { throw .cborUnexpectedType }
        return value
    }

    /// An input that, when present, is `true`: false is INVALID_OPTION.
    func onlyTrue(_ key: String) throws(CTAPStatus) -> Bool {
        guard let flag = try bool(key) else { return false }
        guard flag else { throw .invalidOption }
        return true
    }
}

extension TreeReading {
    /// Where the card's reading of `request` (command byte + CBOR) differs from the tree's: the
    /// request, then what its command reads inside it on a card of `profile`. Nil when they agree.
    static func disagreement(_ request: [UInt8], profile: CardProfile) -> String? {
        let body = request.dropFirst()
        func compare<Value: Equatable>(_ what: String, _ card: Result<Value, CTAPStatus>,
                                       _ tree: Result<Value, CTAPStatus>) -> String? {
            card == tree ? nil : "\(what): the card read \(card), the tree \(tree)"
        }
        func tree(_ bytes: [UInt8]?) -> CBORValue? { bytes.flatMap { try? CBORDecoder.decode($0) } }
        switch request.first.flatMap(CTAPCommand.init(rawValue:)) {
        case .getAssertion:
            let card = Result { () throws(CTAPStatus) in try GetAssertionRequest(decoding: body) }
            if let difference = compare("getAssertion", card, getAssertion(body)) { return difference }
            guard case .success(let read) = card, let sent = read.extensions, let extensions = tree(sent.encoded)?.mapValue else {
                return nil
            }
            let inputs = Result { () throws(CTAPStatus) in try GetAssertionExtensionInputs(sent, profile: profile) }
            let fields = inputs.map { inputs in
                ExtensionInputs(fields: ["hmac-secret": tree(inputs.hmacSecret), "credBlob": .bool(inputs.getCredBlob),
                                         "largeBlobKey": .bool(inputs.largeBlobKey), "thirdPartyPayment": .bool(inputs.thirdPartyPayment)]
                    .compactMapValues { $0 })
            }
            if let difference = compare("getAssertion's extensions", fields, getAssertionExtensions(extensions, profile: profile)) {
                return difference
            }
            guard case .success(let read) = inputs, let salts = read.hmacSecret else { return nil }
            return compare("hmac-secret", Result { () throws(CTAPStatus) in try HMACSecretSalts(decoding: salts[...]) },
                           hmacSecretSalts(tree(salts) ?? .null))
        case .makeCredential:
            let card = Result { () throws(CTAPStatus) in
                try MakeCredentialRequest(decoding: body, ctap21: profile.supportsCTAP21)
            }
            if let difference = compare("makeCredential", card, makeCredential(body, ctap21: profile.supportsCTAP21)) {
                return difference
            }
            guard case .success(let read) = card, let sent = read.extensions, let extensions = tree(sent.encoded)?.mapValue else {
                return nil
            }
            let inputs = Result { () throws(CTAPStatus) in try MakeCredentialExtensionInputs(sent, profile: profile) }
            let fields = inputs.map { inputs in
                ExtensionInputs(fields: [
                    "credProtect": inputs.credProtect.map { .unsigned(UInt64($0)) }, "hmac-secret": .bool(inputs.hmacSecret),
                    "hmac-secret-mc": tree(inputs.hmacSecretMC), "credBlob": inputs.credBlob.map { .bytes($0) },
                    "largeBlobKey": .bool(inputs.largeBlobKey), "minPinLength": .bool(inputs.minPinLength),
                    "thirdPartyPayment": .bool(inputs.thirdPartyPayment),
                ].compactMapValues { $0 })
            }
            if let difference = compare("makeCredential's extensions", fields, makeCredentialExtensions(extensions, profile: profile)) {
                return difference
            }
            guard case .success(let read) = inputs, let salts = read.hmacSecretMC else { return nil }
            return compare("hmac-secret-mc", Result { () throws(CTAPStatus) in try HMACSecretSalts(decoding: salts[...]) },
                           hmacSecretSalts(tree(salts) ?? .null))
        case .clientPIN:
            return compare("clientPIN", Result { () throws(CTAPStatus) in try ClientPINRequest(decoding: body) }, clientPIN(body))
        case .credentialManagement, .credentialManagementPreview:
            let card = Result { () throws(CTAPStatus) in try CredentialManagementRequest(decoding: body) }
            if let difference = compare("credentialManagement", card, subcommand(body, CredentialManagementKey.self)) {
                return difference
            }
            guard case .success(let read) = card, let parameters = tree(read.subCommandParams) else { return nil }
            let members: [Result<String, CTAPStatus>] = [
                Result { () throws(CTAPStatus) in "\(try read.rpIDHash())" },
                Result { () throws(CTAPStatus) in "\(try read.credentialID())" },
                Result { () throws(CTAPStatus) in "\(try read.user())" },
            ]
            return compare("subCommandParams", .success(members), .success(credentialManagementParameters(parameters)))
        case .config:
            let card = Result { () throws(CTAPStatus) in try ConfigRequest(decoding: body) }
            if let difference = compare("authenticatorConfig", card, subcommand(body, ConfigKey.self)) { return difference }
            guard case .success(let read) = card, let parameters = tree(read.subCommandParams) else { return nil }
            return compare("setMinPINLength", Result { () throws(CTAPStatus) in try read.setMinPINLengthParameters() },
                           setMinPINLength(parameters))
        case .largeBlobs:
            return compare("largeBlobs", Result { () throws(CTAPStatus) in try LargeBlobsRequest(decoding: body) }, largeBlobs(body))
        default:
            return nil
        }
    }
}
