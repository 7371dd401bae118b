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
    /// The extensions map, each extension's input as sent (each extension reads its own).
    var extensions: CBORMap?
    var options: [String: Bool] = [:]
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
    /// The enterpriseAttestation member, as sent.
    var enterpriseAttestation: CBORValue?
}

extension MakeCredentialRequest {
    /// Reads the request body (the CBOR after the command byte). A CTAP 2.0 card (`ctap21`
    /// false) does not know enterpriseAttestation: it ignores the member, as any unknown one.
    init(decoding body: ArraySlice<UInt8>, ctap21: Bool = true) throws(CTAPStatus) {
        let request = try RequestMap<MakeCredentialKey>(decoding: body)
        clientDataHash = try request.requiredBytes(.clientDataHash)
        let rp = try request.requiredEntity(.rp)
        let user = try request.requiredEntity(.user)
        guard let parameters = try request.array(.pubKeyCredParams) else { throw .missingParameter }
        excludeList = try CredentialDescriptor.list(decoding: try request.array(.excludeList))
        extensions = try request.map(.extensions)
        options = try request.options(.options)
        pinUvAuthParam = try request.bytes(.pinUvAuthParam)
        pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
        self.rp = try RelyingPartyEntity(decoding: rp)
        self.user = try CredentialUser(decoding: user)
        enterpriseAttestation = ctap21 ? request[.enterpriseAttestation] : nil
        var entries: [CredentialParameters] = []
        entries.reserveCapacity(parameters.count)
        for entry in parameters { entries.append(try CredentialParameters(decoding: entry)) }
        pubKeyCredParams = entries
    }

}

extension MakeCredentialRequest: CTAPSerializable {
    /// The request body: the inverse of ``init(decoding:)``.
    func write(to writer: inout CBORWriter) {
        typealias Key = MakeCredentialKey
        var map = writer.openMap()
        writer.member(Key.clientDataHash, bytes: clientDataHash, of: &map)
        writer.member(Key.rp, rp, of: &map)
        writer.member(Key.user, user, of: &map)
        writer.member(Key.pubKeyCredParams, array: pubKeyCredParams, of: &map) { $1.write(to: &$0) }
        writer.member(Key.excludeList, array: excludeList, omitEmpty: true, of: &map) { $1.write(to: &$0) }
        writer.member(Key.extensions, value: extensions.map { .map($0) }, of: &map)
        writer.member(Key.options, options: options, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.member(Key.enterpriseAttestation, value: enterpriseAttestation, of: &map)
        writer.close(map)
    }
}
