import CBOR
import FIDOWire

/// A CTAP request's parameter map read through the member keys of the wire vocabulary, failing
/// with the status CTAP 2.1 §8 names: a member of the wrong CBOR type is
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`, a missing required one `CTAP2_ERR_MISSING_PARAMETER`.
/// Unknown keys are ignored, as the specification asks.
struct RequestMap<Key: RawRepresentable> where Key.RawValue == Int {
    let map: CBORMap
    /// The bytes the map was decoded from, when it came from bytes.
    private let body: ArraySlice<UInt8>?

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
        self.body = body
    }

    /// A nested integer-keyed map (e.g. subCommandParams).
    init(value: CBORValue) throws(CTAPStatus) {
        guard case .map(let map) = value else { throw .cborUnexpectedType }
        self.map = map
        body = nil
    }

    /// Member `key` exactly as it was sent: the bytes a pinUvAuthParam over it covers.
    func encodedMember(_ key: Key) -> [UInt8]? {
        guard let body else { return self[key].map { CBOREncoder.encode($0) } }
        var reader = CBORReader(body)
        guard case .map(let count)? = try? reader.next() else { return nil }
        for _ in 0..<count {
            guard let name = try? reader.value(), let value = try? reader.skipItem() else { return nil }
            if name == .int(key.rawValue) { return Array(value) }
        }
        return nil
    }

    subscript(key: Key) -> CBORValue? { map[int: key.rawValue] }

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

    func entity(_ key: Key) throws(CTAPStatus) -> EntityMap? {
        guard let value = self[key] else { return nil }
        return try EntityMap(value: value)
    }

    func requiredEntity(_ key: Key) throws(CTAPStatus) -> EntityMap {
        guard let entity = try entity(key) else { throw .missingParameter }
        return entity
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
            guard case .text(let name) = name else { throw .cborUnexpectedType }
            guard case .bool(let flag) = flag else { throw .cborUnexpectedType }
            result[name] = flag
        }
        return result
    }
}

/// A text-keyed map inside a request: an entity (`rp`, `user`), a credential descriptor, the
/// extensions map.
struct EntityMap {
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
}

extension CBORMap {
    /// Sets integer-keyed member `key` (absent when `value` is nil).
    mutating func set<Key: RawRepresentable>(_ key: Key, _ value: CBORValue?) where Key.RawValue == Int {
        self[.int(key.rawValue)] = value
    }
}
