import CBOR
import FIDOWire

/// authenticatorMakeCredential's parameters (CTAP 2.1 §6.1.1), read and type-checked; what they
/// mean is the command's business (`Authenticator+MakeCredential`).
struct MakeCredentialRequest: Sendable, Equatable {
    var clientDataHash: [UInt8]
    var rp: RelyingPartyEntity
    var user: CredentialUser
    var pubKeyCredParams: [CredentialParameters]
    var excludeList: [CredentialDescriptor] = []
    /// The extensions map as sent: each extension's input is read by
    /// ``MakeCredentialExtensionInputs`` (which the profile decides).
    var extensions: [UInt8]?
    var options: [String: Bool] = [:]
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
    /// The enterpriseAttestation member, as sent.
    var enterpriseAttestation: CBORValue?
}

extension MakeCredentialRequest {
    /// Reads the request body (the CBOR after the command byte). A CTAP 2.0 card (`ctap21`
    /// false) does not know enterpriseAttestation: it ignores the member, as any unknown one.
    init(decoding body: ArraySlice<UInt8>, ctap21: Bool) throws(CTAPStatus) {
        self = try MakeCredentialRequest(decoding: body)
        if !ctap21 { enterpriseAttestation = nil }
    }
}

extension MakeCredentialRequest: CTAPMessage {
    /// Reads the request body, members in any order. The entities and the parameters list are
    /// judged after the members of the request itself, as a tree's reading judged them: kept as
    /// sent, then read.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var clientDataHash = Member<[UInt8]>.absent
        var rp = Member<ArraySlice<UInt8>>.absent
        var user = Member<ArraySlice<UInt8>>.absent
        var pubKeyCredParams = Member<ArraySlice<UInt8>>.absent
        var excludeList = Member<[CredentialDescriptor]>.absent
        var extensions = Member<ArraySlice<UInt8>>.absent
        var options = Member<[String: Bool]>.absent
        var pinUvAuthParam = Member<[UInt8]>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        var enterpriseAttestation = Member<CBORValue>.absent
        while let key: MakeCredentialKey = try members.next(&reader) {
            switch key {
            case .clientDataHash: clientDataHash = try reader.byteString()
            case .rp: rp = try reader.asSent()
            case .user: user = try reader.asSent()
            case .pubKeyCredParams: pubKeyCredParams = try reader.asSent(array: true)
            case .excludeList: excludeList = try reader.array(of: CredentialDescriptor.self)
            case .extensions: extensions = try reader.asSent()
            case .options: options = try reader.options()
            case .pinUvAuthParam: pinUvAuthParam = try reader.byteString()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            case .enterpriseAttestation: enterpriseAttestation = try reader.anyValue()
            case .attestationFormatsPreference: _ = try reader.skipItem()  // CTAP 2.2; one format per profile
            }
        }
        return Result { () throws(CTAPStatus) in
            let clientDataHash = try clientDataHash.required()
            _ = try rp.required()
            _ = try user.required()
            _ = try pubKeyCredParams.required()
            let excludeList = try excludeList.optional() ?? []
            let extensions = try extensions.optional().map(Array.init)
            let options = try options.optional() ?? [:]
            let pinUvAuthParam = try pinUvAuthParam.optional()
            let pinUvAuthProtocol = try pinUvAuthProtocol.optional()
            return MakeCredentialRequest(
                clientDataHash: clientDataHash, rp: try rp.reading { reader throws(CBORError) in try reader.message(RelyingPartyEntity.self) }.required(),
                user: try user.reading { reader throws(CBORError) in try reader.message(CredentialUser.self) }.required(),
                pubKeyCredParams: try pubKeyCredParams.reading { reader throws(CBORError) in
                    try reader.array(of: CredentialParameters.self)
                }.required(),
                excludeList: excludeList, extensions: extensions, options: options, pinUvAuthParam: pinUvAuthParam,
                pinUvAuthProtocol: pinUvAuthProtocol, enterpriseAttestation: try enterpriseAttestation.optional())
        }
    }

    /// The request body: the inverse of ``read(from:)``.
    func write(to writer: inout CBORWriter) {
        typealias Key = MakeCredentialKey
        var map = writer.openMap()
        writer.member(Key.clientDataHash, bytes: clientDataHash, of: &map)
        writer.member(Key.rp, rp, of: &map)
        writer.member(Key.user, user, of: &map)
        writer.member(Key.pubKeyCredParams, array: pubKeyCredParams, of: &map) { $1.write(to: &$0) }
        writer.member(Key.excludeList, array: excludeList, omitEmpty: true, of: &map) { $1.write(to: &$0) }
        writer.member(Key.extensions, encoded: extensions, of: &map)
        writer.member(Key.options, options: options, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.member(Key.enterpriseAttestation, value: enterpriseAttestation, of: &map)
        writer.close(map)
    }
}
