import CBOR
import FIDOWire

/// The getAssertion request as platforms send it, read without a CBOR tree: for an assertion
/// with an allow list of one, building the tree, reading it and releasing it cost a quarter
/// of everything the card does besides the signature.
///
/// The common shape: a map whose keys come in ascending order, each once, and are among rpId,
/// clientDataHash, allowList (descriptors of "id", "type" and optionally "transports" as
/// text, in canonical order), options (text keys in canonical order, boolean values),
/// pinUvAuthParam and pinUvAuthProtocol, each of the type CTAP 2.1 §6.2 gives it; rpId and
/// clientDataHash present; nothing after the map. Canonical CBOR, which every platform sends,
/// is always in that order. Anything else (extensions, an unknown key, keys out of order, a
/// wrong type, a malformed item) is not read here but by ``init(decodingTree:)``, so every
/// error and every unusual request is answered exactly as before. A test and the ctap2 fuzz
/// target hold the two readings equal wherever this one answers.
extension GetAssertionRequest {
    init?(commonShape body: ArraySlice<UInt8>) {
        var reader = CBORReader(body)
        guard case .map(let count)? = try? reader.next() else { return nil }
        var rpId: String?
        var clientDataHash: [UInt8]?
        var allowList: [CredentialDescriptor] = []
        var options: [String: Bool] = [:]
        var pinUvAuthParam: [UInt8]?
        var pinUvAuthProtocol: UInt64?
        var previousKey: UInt64 = 0
        for _ in 0..<count {
            guard case .unsigned(let key)? = try? reader.next(), key > previousKey else { return nil }
            previousKey = key
            switch Int(exactly: key).flatMap(GetAssertionKey.init(rawValue:)) {
            case .rpId:
                guard case .text(let text)? = try? reader.next() else { return nil }
                rpId = String(decoding: text, as: UTF8.self)
            case .clientDataHash:
                guard case .bytes(let bytes)? = try? reader.next() else { return nil }
                clientDataHash = Array(bytes)
            case .allowList:
                guard let list = Self.descriptors(&reader) else { return nil }
                allowList = list
            case .options:
                guard let read = Self.options(&reader) else { return nil }
                options = read
            case .pinUvAuthParam:
                guard case .bytes(let bytes)? = try? reader.next() else { return nil }
                pinUvAuthParam = Array(bytes)
            case .pinUvAuthProtocol:
                guard case .unsigned(let number)? = try? reader.next() else { return nil }
                pinUvAuthProtocol = number
            case .extensions, nil:
                return nil
            }
        }
        reader.endContainer()
        guard reader.isAtEnd, let rpId, let clientDataHash else { return nil }
        self.init(rpId: rpId, clientDataHash: clientDataHash, allowList: allowList, extensions: nil, options: options,
                  pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol)
    }

    /// The next token if it is the text `expected`.
    private static func text(_ expected: String, _ reader: inout CBORReader) -> Bool {
        guard case .text(let utf8)? = try? reader.next() else { return false }
        return utf8.elementsEqual(expected.utf8)
    }

    /// An array of descriptors, each `{"id": bytes, "type": text}` with optional
    /// `"transports": [text…]`, keys in canonical order.
    private static func descriptors(_ reader: inout CBORReader) -> [CredentialDescriptor]? {
        guard case .array(let count)? = try? reader.next() else { return nil }
        var list: [CredentialDescriptor] = []
        list.reserveCapacity(count)
        for _ in 0..<count {
            guard case .map(let members)? = try? reader.next(), members == 2 || members == 3,
                  text("id", &reader), case .bytes(let id)? = try? reader.next(), text("type", &reader),
                  case .text(let type)? = try? reader.next() else { return nil }
            var descriptor = CredentialDescriptor(type: String(decoding: type, as: UTF8.self), id: Array(id))
            if members == 3 {
                guard text("transports", &reader), case .array(let transportCount)? = try? reader.next() else { return nil }
                var transports: [CBORValue] = []
                for _ in 0..<transportCount {
                    guard case .text(let transport)? = try? reader.next() else { return nil }
                    transports.append(.text(String(decoding: transport, as: UTF8.self)))
                }
                reader.endContainer()
                descriptor.transports = transports
            }
            reader.endContainer()
            list.append(descriptor)
        }
        reader.endContainer()
        return list
    }

    /// The options map: text keys in strictly ascending canonical order (so none twice),
    /// boolean values.
    private static func options(_ reader: inout CBORReader) -> [String: Bool]? {
        guard case .map(let count)? = try? reader.next() else { return nil }
        var options: [String: Bool] = [:]
        var previous: ArraySlice<UInt8>?
        for _ in 0..<count {
            guard case .text(let name)? = try? reader.next(), case .bool(let flag)? = try? reader.next() else { return nil }
            if let previous {
                guard previous.count < name.count || (previous.count == name.count && previous.lexicographicallyPrecedes(name))
                else { return nil }
            }
            previous = name
            options[String(decoding: name, as: UTF8.self)] = flag
        }
        reader.endContainer()
        return options
    }
}
