import CBOR
import FIDOWire

/// authenticatorGetAssertion's parameters (CTAP 2.1 §6.2.1), read and type-checked.
struct GetAssertionRequest: Sendable, Equatable {
    var rpId: String
    var clientDataHash: [UInt8]
    var allowList: [CredentialDescriptor] = []
    var extensions: CBORMap?
    var options: [String: Bool] = [:]
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
}

extension GetAssertionRequest {
    /// Reads the request body (the CBOR after the command byte): the common shape directly
    /// (``init(commonShape:)``), anything else through the CBOR tree.
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        if let request = GetAssertionRequest(commonShape: body) {
            self = request
        } else {
            try self.init(decodingTree: body)
        }
    }

    /// Reads the request body through a ``CBORValue`` tree: every input, every error.
    init(decodingTree body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let request = try RequestMap<GetAssertionKey>(decoding: body)
        rpId = try request.requiredText(.rpId)
        clientDataHash = try request.requiredBytes(.clientDataHash)
        allowList = try CredentialDescriptor.list(decoding: try request.array(.allowList))
        extensions = try request.map(.extensions)
        options = try request.options(.options)
        pinUvAuthParam = try request.bytes(.pinUvAuthParam)
        pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
    }

    /// The request body: the inverse of ``init(decoding:)``.
    func encoded() -> [UInt8] {
        var map = CBORMap()
        map.set(GetAssertionKey.rpId, .text(rpId))
        map.set(GetAssertionKey.clientDataHash, .bytes(clientDataHash))
        if !allowList.isEmpty { map.set(GetAssertionKey.allowList, .array(allowList.map(\.encoded))) }
        map.set(GetAssertionKey.extensions, extensions.map { .map($0) })
        if !options.isEmpty { map.set(GetAssertionKey.options, .map(CBORMap(options.map { (.text($0.key), .bool($0.value)) }))) }
        map.set(GetAssertionKey.pinUvAuthParam, pinUvAuthParam.map { .bytes($0) })
        map.set(GetAssertionKey.pinUvAuthProtocol, pinUvAuthProtocol.map { .unsigned($0) })
        return CBOREncoder.encode(.map(map))
    }
}
