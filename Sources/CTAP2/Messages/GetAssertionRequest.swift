import CBOR
import FIDOWire

/// authenticatorGetAssertion's parameters (CTAP 2.1 §6.2.1), read and type-checked.
struct GetAssertionRequest: Sendable, Equatable {
    var rpId: String
    var clientDataHash: [UInt8]
    var allowList: [CredentialDescriptor] = []
    /// The extensions map as sent: each extension's input is read by
    /// ``GetAssertionExtensionInputs`` (which the profile decides).
    var extensions: [UInt8]?
    var options: [String: Bool] = [:]
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
}

extension GetAssertionRequest: CTAPMessage {
    /// Reads the request body (the CBOR after the command byte), members in any order, straight
    /// into the request: for an assertion with an allow list of one, a CBOR tree built, read and
    /// released cost a quarter of everything the card does besides the signature.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var rpId = Member<String>.absent
        var clientDataHash = Member<[UInt8]>.absent
        var allowList = Member<[CredentialDescriptor]>.absent
        var extensions = Member<ArraySlice<UInt8>>.absent
        var options = Member<[String: Bool]>.absent
        var pinUvAuthParam = Member<[UInt8]>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        while let key: GetAssertionKey = try members.next(&reader) {
            switch key {
            case .rpId: rpId = try reader.text()
            case .clientDataHash: clientDataHash = try reader.byteString()
            case .allowList: allowList = try reader.array(of: CredentialDescriptor.self)
            case .extensions: extensions = try reader.asSent()
            case .options: options = try reader.options()
            case .pinUvAuthParam: pinUvAuthParam = try reader.byteString()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            }
        }
        return Result { () throws(CTAPStatus) in
            let rpId = try rpId.required()
            let clientDataHash = try clientDataHash.required()
            let allowList = try allowList.optional() ?? []
            let extensions = try extensions.optional().map(Array.init)
            let options = try options.optional() ?? [:]
            return GetAssertionRequest(rpId: rpId, clientDataHash: clientDataHash, allowList: allowList, extensions: extensions,
                                       options: options, pinUvAuthParam: try pinUvAuthParam.optional(),
                                       pinUvAuthProtocol: try pinUvAuthProtocol.optional())
        }
    }

    /// The request body: the inverse of ``read(from:)``.
    func write(to writer: inout CBORWriter) {
        typealias Key = GetAssertionKey
        var map = writer.openMap()
        writer.member(Key.rpId, text: rpId, of: &map)
        writer.member(Key.clientDataHash, bytes: clientDataHash, of: &map)
        writer.member(Key.allowList, array: allowList, omitEmpty: true, of: &map) { $1.write(to: &$0) }
        writer.member(Key.extensions, encoded: extensions, of: &map)
        writer.member(Key.options, options: options, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.close(map)
    }
}
