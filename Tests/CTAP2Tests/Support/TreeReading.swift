import CBOR
import FIDOWire

@testable import CTAP2

/// The requests as a ``CBORValue`` tree reads them: decode the whole body with ``CBORDecoder``,
/// then look each member up in the tree, in the order the card judged them before it read its
/// messages with the pull reader. This is the oracle the one reader is held to, by the
/// differential tests (`MessageReadingTests`) and the ctap2 fuzz target: for every input both
/// give the same request or the same status.
///
/// Written apart from the card's readers on purpose (lookups in a tree, not a pass over tokens),
/// and compiled into the fuzz harness too (no test framework here).
enum TreeReading {
    static func getAssertion(_ body: ArraySlice<UInt8>) -> Result<GetAssertionRequest, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let request = try TreeMap<GetAssertionKey>(decoding: body)
            let rpId = try request.requiredText(.rpId)
            let clientDataHash = try request.requiredBytes(.clientDataHash)
            let allowList = try descriptors(try request.array(.allowList))
            let extensions = try request.map(.extensions).flatMap { _ in request.asSent(.extensions).flatMap(ExtensionsMap.init(tree:)) }
            return GetAssertionRequest(rpId: rpId, clientDataHash: clientDataHash, allowList: allowList, extensions: extensions,
                                       options: try request.options(.options), pinUvAuthParam: try request.bytes(.pinUvAuthParam),
                                       pinUvAuthProtocol: try request.unsigned(.pinUvAuthProtocol))
        }
    }

    static func makeCredential(_ body: ArraySlice<UInt8>, ctap21: Bool) -> Result<MakeCredentialRequest, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let request = try TreeMap<MakeCredentialKey>(decoding: body)
            let clientDataHash = try request.requiredBytes(.clientDataHash)
            let rp = try request.requiredEntity(.rp)
            let user = try request.requiredEntity(.user)
            guard let parameters = try request.array(.pubKeyCredParams) else { throw .missingParameter }
            let excludeList = try descriptors(try request.array(.excludeList))
            let extensions = try request.map(.extensions).flatMap { _ in request.asSent(.extensions).flatMap(ExtensionsMap.init(tree:)) }
            let options = try request.options(.options)
            let pinUvAuthParam = try request.bytes(.pinUvAuthParam)
            let pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
            guard let rpId = try rp.text("id") else { throw .missingParameter }
            let relyingParty = RelyingPartyEntity(id: rpId, name: try rp.text("name"))
            let credentialUser = try Self.user(user)
            let enterpriseAttestation = ctap21 ? request[.enterpriseAttestation] : nil
            var entries: [CredentialParameters] = []
            for entry in parameters {
                let entity = try TreeEntity(value: entry)
                guard let type = try entity.text("type") else { throw .missingParameter }
                guard let algorithm = entity["alg"] else { throw .missingParameter }
                guard let number = algorithm.intValue else { throw .cborUnexpectedType }
                entries.append(CredentialParameters(type: type, algorithm: number))
            }
            return MakeCredentialRequest(clientDataHash: clientDataHash, rp: relyingParty, user: credentialUser,
                                         pubKeyCredParams: entries, excludeList: excludeList, extensions: extensions,
                                         options: options, pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol,
                                         enterpriseAttestation: enterpriseAttestation)
        }
    }

    static func clientPIN(_ body: ArraySlice<UInt8>) -> Result<ClientPINRequest, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let request = try TreeMap<ClientPINKey>(decoding: body)
            return ClientPINRequest(subCommand: try request.requiredUnsigned(.subCommand),
                                    pinUvAuthProtocol: try request.unsigned(.pinUvAuthProtocol),
                                    keyAgreement: request[.keyAgreement], pinUvAuthParam: try request.bytes(.pinUvAuthParam),
                                    newPinEnc: try request.bytes(.newPinEnc), pinHashEnc: try request.bytes(.pinHashEnc),
                                    permissions: try request.unsigned(.permissions), rpId: try request.text(.rpId))
        }
    }

    static func subcommand<Key: SubcommandRequestKey>(_ body: ArraySlice<UInt8>, _: Key.Type)
        -> Result<SubcommandRequest<Key>, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let request = try TreeMap<Key>(decoding: body)
            let subCommand = try request.requiredUnsigned(.subCommand)
            let parameters = try request.map(.subCommandParams).flatMap { _ in request.asSent(.subCommandParams) }
            return SubcommandRequest(subCommand: subCommand, subCommandParams: parameters,
                                     pinUvAuthProtocol: try request.unsigned(.pinUvAuthProtocol),
                                     pinUvAuthParam: try request.bytes(.pinUvAuthParam))
        }
    }

    static func largeBlobs(_ body: ArraySlice<UInt8>) -> Result<LargeBlobsRequest, CTAPStatus> {
        Result { () throws(CTAPStatus) in
            let request = try TreeMap<LargeBlobsKey>(decoding: body)
            return LargeBlobsRequest(get: try request.unsigned(.get), set: try request.bytes(.set),
                                     offset: try request.unsigned(.offset), length: try request.unsigned(.length),
                                     pinUvAuthParam: try request.bytes(.pinUvAuthParam),
                                     pinUvAuthProtocol: try request.unsigned(.pinUvAuthProtocol))
        }
    }

    /// A descriptor list (absent is empty): each `type` and `id` required, `transports` an array.
    static func descriptors(_ values: [CBORValue]?) throws(CTAPStatus) -> [CredentialDescriptor] {
        var result: [CredentialDescriptor] = []
        for value in values ?? [] { result.append(try descriptor(value)) }
        return result
    }

    static func descriptor(_ value: CBORValue) throws(CTAPStatus) -> CredentialDescriptor {
        let entity = try TreeEntity(value: value)
        guard let type = try entity.text("type") else { throw .missingParameter }
        guard let id = try entity.bytes("id") else { throw .missingParameter }
        var transports: [CBORValue]?
        if let list = entity["transports"] {
            guard case .array(let items) = list else { throw .cborUnexpectedType }
            transports = items
        }
        return CredentialDescriptor(type: type, id: id, transports: transports)
    }

    static func user(_ entity: TreeEntity) throws(CTAPStatus) -> CredentialUser {
        guard let id = try entity.bytes("id") else { throw .missingParameter }
        return CredentialUser(id: id, name: try entity.text("name"), displayName: try entity.text("displayName"))
    }
}

/// The length of the head that begins with `initial`.
private func headLength(_ initial: UInt8) -> Int {
    switch initial & 0x1F {
    case 24: 2
    case 25: 3
    case 26: 5
    case 27: 9
    default: 1
    }
}

extension ExtensionsMap {
    /// `encoded`, a well-formed map, as the card's reading keeps it, found by decoding its members
    /// one after another: each one whose key is the text of an extension the card knows, with
    /// where its value lies, in the order sent.
    init?(tree encoded: [UInt8]) {
        guard let initial = encoded.first, initial >> 5 == 5 else { return nil }
        var rest = encoded.dropFirst(headLength(initial))
        var entries: [Entry] = []
        while !rest.isEmpty {
            guard let name = try? CBORDecoder.decodePrefix(rest, maximumDepth: .max),
                  let value = try? CBORDecoder.decodePrefix(name.rest, maximumDepth: .max) else { return nil }
            if case .text(let text) = name.value, let identifier = ExtensionIdentifier(rawValue: text) {
                entries.append(Entry(identifier: identifier, value: name.rest.startIndex..<value.rest.startIndex))
            }
            rest = value.rest
        }
        self.init(encoded: encoded, entries: entries)
    }
}

/// A parameter map read through a tree: a member of the wrong CBOR type is
/// CTAP2_ERR_CBOR_UNEXPECTED_TYPE, a missing required one CTAP2_ERR_MISSING_PARAMETER.
struct TreeMap<Key: RawRepresentable> where Key.RawValue == Int {
    let map: CBORMap
    /// The bytes the map was decoded from, for members taken as sent.
    private let body: ArraySlice<UInt8>?

    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(body)
        } catch {
            throw CTAPStatus(decodingError: error)
        }
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
        self.body = body
    }

    init(value: CBORValue) throws(CTAPStatus) {
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
        body = nil
    }

    subscript(key: Key) -> CBORValue? { map[int: key.rawValue] }

    /// Member `key` exactly as it was sent, found by decoding the members one after another.
    func asSent(_ key: Key) -> [UInt8]? {
        guard let body else { return self[key].map { CBOREncoder.encode($0) } }
        var rest = body.dropFirst(headLength(body.first ?? 0))
        while !rest.isEmpty {
            guard let name = try? CBORDecoder.decodePrefix(rest, maximumDepth: .max),
                  let value = try? CBORDecoder.decodePrefix(name.rest, maximumDepth: .max) else { return nil }
            if name.value == .int(key.rawValue) { return Array(name.rest[name.rest.startIndex..<value.rest.startIndex]) }
            rest = value.rest
        }
        return nil
    }

    func bytes(_ key: Key) throws(CTAPStatus) -> [UInt8]? {
        guard let value = self[key] else { return nil }
        guard case .bytes(let bytes) = value else { throw .cborUnexpectedType }
        return bytes
    }

    func requiredBytes(_ key: Key) throws(CTAPStatus) -> [UInt8] {
        guard let bytes = try bytes(key) else { throw .missingParameter }
        return bytes
    }

    func text(_ key: Key) throws(CTAPStatus) -> String? {
        guard let value = self[key] else { return nil }
        guard case .text(let text) = value else { throw .cborUnexpectedType }
        return text
    }

    func requiredText(_ key: Key) throws(CTAPStatus) -> String {
        guard let text = try text(key) else { throw .missingParameter }
        return text
    }

    func unsigned(_ key: Key) throws(CTAPStatus) -> UInt64? {
        guard let value = self[key] else { return nil }
        guard case .unsigned(let number) = value else { throw .cborUnexpectedType }
        return number
    }

    func requiredUnsigned(_ key: Key) throws(CTAPStatus) -> UInt64 {
        guard let number = try unsigned(key) else { throw .missingParameter }
        return number
    }

    func requiredEntity(_ key: Key) throws(CTAPStatus) -> TreeEntity {
        guard let value = self[key] else { throw .missingParameter }
        return try TreeEntity(value: value)
    }

    func array(_ key: Key) throws(CTAPStatus) -> [CBORValue]? {
        guard let value = self[key] else { return nil }
        guard case .array(let array) = value else { throw .cborUnexpectedType }
        return array
    }

    func map(_ key: Key) throws(CTAPStatus) -> CBORMap? {
        guard let value = self[key] else { return nil }
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        return map
    }

    /// The `options` map: text keys, boolean values.
    func options(_ key: Key) throws(CTAPStatus) -> [String: Bool] {
        guard let value = self[key] else { return [:] }
        guard case .map(let options) = value else { throw .cborUnexpectedType }
        var result: [String: Bool] = [:]
        for (name, flag) in options.entries {
            guard case .text(let name) = name, case .bool(let flag) = flag else { throw .cborUnexpectedType }
            result[name] = flag
        }
        return result
    }
}

/// A text-keyed map inside a request read through a tree: an entity, a descriptor, extensions.
struct TreeEntity {
    let map: CBORMap

    init(value: CBORValue) throws(CTAPStatus) {
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
    }

    subscript(key: String) -> CBORValue? { map[text: key] }

    func text(_ key: String) throws(CTAPStatus) -> String? {
        guard let value = map[text: key] else { return nil }
        guard case .text(let text) = value else { throw .cborUnexpectedType }
        return text
    }

    func bytes(_ key: String) throws(CTAPStatus) -> [UInt8]? {
        guard let value = map[text: key] else { return nil }
        guard case .bytes(let bytes) = value else { throw .cborUnexpectedType }
        return bytes
    }

    func bool(_ key: String) throws(CTAPStatus) -> Bool? {
        guard let value = map[text: key] else { return nil }
        guard case .bool(let flag) = value else { throw .cborUnexpectedType }
        return flag
    }
}
