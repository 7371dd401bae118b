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

}

extension GetAssertionRequest: CTAPSerializable {
    /// The request body: the inverse of ``init(decoding:)``.
    func write(to writer: inout CBORWriter) {
        typealias Key = GetAssertionKey
        var map = writer.openMap()
        writer.member(Key.rpId, text: rpId, of: &map)
        writer.member(Key.clientDataHash, bytes: clientDataHash, of: &map)
        writer.member(Key.allowList, array: allowList, omitEmpty: true, of: &map) { $1.write(to: &$0) }
        writer.member(Key.extensions, value: extensions.map { .map($0) }, of: &map)
        writer.member(Key.options, options: options, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.close(map)
    }
}
