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
        guard let count = reader.mapCount() else { return nil }
        var rpId: String?
        var clientDataHash: [UInt8]?
        var allowList: [CredentialDescriptor] = []
        var options: [String: Bool] = [:]
        var pinUvAuthParam: [UInt8]?
        var pinUvAuthProtocol: UInt64?
        var previousKey: UInt64 = 0
        for _ in 0..<count {
            guard let key = reader.unsigned(), key > previousKey else { return nil }
            previousKey = key
            switch Int(exactly: key).flatMap(GetAssertionKey.init(rawValue:)) {
            case .rpId:
                guard let text = reader.text() else { return nil }
                rpId = text
            case .clientDataHash:
                guard let bytes = reader.byteString() else { return nil }
                clientDataHash = bytes
            case .allowList:
                guard let list = Self.descriptors(&reader) else { return nil }
                allowList = list
            case .options:
                guard let read = Self.options(&reader) else { return nil }
                options = read
            case .pinUvAuthParam:
                guard let bytes = reader.byteString() else { return nil }
                pinUvAuthParam = bytes
            case .pinUvAuthProtocol:
                guard let number = reader.unsigned() else { return nil }
                pinUvAuthProtocol = number
            case .extensions, nil:
                return nil
            }
        }
        guard reader.isAtEnd, let rpId, let clientDataHash else { return nil }
        self.init(rpId: rpId, clientDataHash: clientDataHash, allowList: allowList, extensions: nil, options: options,
                  pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol)
    }

    // The descriptor's keys and usual type, encoded (text heads included).
    private static let idKey: [UInt8] = [0x62] + Array("id".utf8)
    private static let typeKey: [UInt8] = [0x64] + Array("type".utf8)
    private static let transportsKey: [UInt8] = [0x6A] + Array("transports".utf8)
    private static let publicKeyType: [UInt8] = [0x6A] + Array("public-key".utf8)

    /// An array of descriptors, each `{"id": bytes, "type": text}` with optional
    /// `"transports": [text…]`, keys in canonical order.
    private static func descriptors(_ reader: inout CBORReader) -> [CredentialDescriptor]? {
        guard let count = reader.arrayCount() else { return nil }
        var list: [CredentialDescriptor] = []
        list.reserveCapacity(count)
        for _ in 0..<count {
            guard let members = reader.mapCount(), members == 2 || members == 3,
                  reader.skip(encoded: idKey), let id = reader.byteString(), reader.skip(encoded: typeKey) else { return nil }
            var descriptor = CredentialDescriptor(id: id)  // type "public-key"
            if !reader.skip(encoded: publicKeyType) {
                guard let type = reader.text() else { return nil }
                descriptor.type = type
            }
            if members == 3 {
                guard reader.skip(encoded: transportsKey), let transportCount = reader.arrayCount() else { return nil }
                var transports: [CBORValue] = []
                for _ in 0..<transportCount {
                    guard let transport = reader.text() else { return nil }
                    transports.append(.text(transport))
                }
                descriptor.transports = transports
            }
            list.append(descriptor)
        }
        return list
    }

    /// The options map: text keys in strictly ascending canonical order (so none twice),
    /// boolean values.
    private static func options(_ reader: inout CBORReader) -> [String: Bool]? {
        guard let count = reader.mapCount() else { return nil }
        var options: [String: Bool] = [:]
        var previous: ArraySlice<UInt8>?
        for _ in 0..<count {
            guard let name = reader.textBytes(), let flag = reader.bool() else { return nil }
            if let previous {
                guard previous.count < name.count || (previous.count == name.count && previous.lexicographicallyPrecedes(name))
                else { return nil }
            }
            previous = name
            options[String(decoding: name, as: UTF8.self)] = flag
        }
        return options
    }
}
