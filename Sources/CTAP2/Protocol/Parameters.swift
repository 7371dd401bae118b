import CBOR
import FIDOWire

/// Typed access to a CTAP request's parameter map, failing with the status CTAP 2.1 §8 names:
/// a parameter of the wrong CBOR type is `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`, a missing required one
/// `CTAP2_ERR_MISSING_PARAMETER`. Unknown keys are ignored, as the specification asks.
struct Parameters {
    let map: CBORMap

    init(_ map: CBORMap) { self.map = map }

    /// Decodes a request body (the bytes after the command byte), which must be one CBOR map.
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(body)
        } catch {
            throw CTAPStatus(decodingError: error)
        }
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
    }

    init(value: CBORValue) throws(CTAPStatus) {
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
    }

    subscript(key: Int) -> CBORValue? { map[int: key] }
    subscript(key: String) -> CBORValue? { map[text: key] }

    func bytes(_ key: Int) throws(CTAPStatus) -> [UInt8]? {
        guard let value = map[int: key] else { return nil }
        guard case .bytes(let bytes) = value else { throw .cborUnexpectedType }
        return bytes
    }

    func requiredBytes(_ key: Int) throws(CTAPStatus) -> [UInt8] {
        guard let bytes = try bytes(key) else { throw .missingParameter }
        return bytes
    }

    func text(_ key: Int) throws(CTAPStatus) -> String? {
        guard let value = map[int: key] else { return nil }
        guard case .text(let text) = value else { throw .cborUnexpectedType }
        return text
    }

    func requiredText(_ key: Int) throws(CTAPStatus) -> String {
        guard let text = try text(key) else { throw .missingParameter }
        return text
    }

    func unsigned(_ key: Int) throws(CTAPStatus) -> UInt64? {
        guard let value = map[int: key] else { return nil }
        guard case .unsigned(let number) = value else { throw .cborUnexpectedType }
        return number
    }

    func requiredUnsigned(_ key: Int) throws(CTAPStatus) -> UInt64 {
        guard let number = try unsigned(key) else { throw .missingParameter }
        return number
    }

    func nested(_ key: Int) throws(CTAPStatus) -> Parameters? {
        guard let value = map[int: key] else { return nil }
        return try Parameters(value: value)
    }

    func requiredNested(_ key: Int) throws(CTAPStatus) -> Parameters {
        guard let nested = try nested(key) else { throw .missingParameter }
        return nested
    }

    func array(_ key: Int) throws(CTAPStatus) -> [CBORValue]? {
        guard let value = map[int: key] else { return nil }
        guard case .array(let array) = value else { throw .cborUnexpectedType }
        return array
    }

    /// Text-keyed lookups used inside entities (`rp`, `user`) and option maps.
    func text(named key: String) throws(CTAPStatus) -> String? {
        guard let value = map[text: key] else { return nil }
        guard case .text(let text) = value else { throw .cborUnexpectedType }
        return text
    }

    func bytes(named key: String) throws(CTAPStatus) -> [UInt8]? {
        guard let value = map[text: key] else { return nil }
        guard case .bytes(let bytes) = value else { throw .cborUnexpectedType }
        return bytes
    }

    /// The `options` map (key 0x07 in makeCredential, 0x05 in getAssertion): text keys, boolean values.
    func options(_ key: Int) throws(CTAPStatus) -> [String: Bool] {
        guard let value = map[int: key] else { return [:] }
        guard case .map(let options) = value else { throw .cborUnexpectedType }
        var result: [String: Bool] = [:]
        for (name, flag) in options.entries {
            guard case .text(let name) = name else { throw .cborUnexpectedType }
            guard case .bool(let flag) = flag else { throw .cborUnexpectedType }
            result[name] = flag
        }
        return result
    }
}

extension CTAPStatus {
    /// The status for a request body that is not well-formed CTAP2 CBOR.
    init(decodingError error: CBORError) {
        switch error {
        case .unsupportedMajorType, .unsupportedSimpleValue:
            self = .cborUnexpectedType
        default:
            self = .invalidCBOR
        }
    }
}

/// A `PublicKeyCredentialDescriptor` (WebAuthn §5.10.3) as sent in allow and exclude lists.
struct CredentialDescriptor {
    let type: String
    let id: [UInt8]

    init(_ value: CBORValue) throws(CTAPStatus) {
        let parameters = try Parameters(value: value)
        guard let type = try parameters.text(named: "type") else { throw .missingParameter }
        guard let id = try parameters.bytes(named: "id") else { throw .missingParameter }
        if let transports = parameters["transports"], transports.arrayValue == nil {
            throw .cborUnexpectedType
        }
        self.type = type
        self.id = id
    }

    static func list(_ values: [CBORValue]?) throws(CTAPStatus) -> [CredentialDescriptor] {
        guard let values else { return [] }
        var result: [CredentialDescriptor] = []
        result.reserveCapacity(values.count)
        for value in values { result.append(try CredentialDescriptor(value)) }
        return result
    }

    static func encode(id: [UInt8]) -> CBORValue {
        .map(["id": .bytes(id), "type": "public-key"])
    }
}
