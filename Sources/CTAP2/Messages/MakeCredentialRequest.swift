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
    /// The extensions map, as sent and with its members found: each extension's input is read
    /// from them by ``MakeCredentialExtensionInputs`` (which the profile decides).
    var extensions: ExtensionsMap?
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

extension MakeCredentialRequest: CTAPMessage, DeclaredMembers {
    /// The entities and the parameters list are judged after the members of the request itself,
    /// as a tree's reading judged them. attestationFormatsPreference (CTAP 2.2) is not read: one
    /// format per profile.
    static let members = MessageMembers<Self, MakeCredentialKey>([
        .required(.clientDataHash, \.clientDataHash, .bytes),
        .required(.rp, \.rp, .message, judgedLater: true),
        .required(.user, \.user, .message, judgedLater: true),
        .required(.pubKeyCredParams, \.pubKeyCredParams, .array(of: .message), judgedLater: true),
        .defaulted(.excludeList, \.excludeList, .array(of: .message), omitted: \.isEmpty),
        .optional(.extensions, \.extensions, .extensionsMap),
        .defaulted(.options, \.options, .options, omitted: \.isEmpty),
        .optional(.pinUvAuthParam, \.pinUvAuthParam, .bytes),
        .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
        .optional(.enterpriseAttestation, \.enterpriseAttestation, .any),
    ])
    static let initial = MakeCredentialRequest(clientDataHash: [], rp: .initial, user: .initial, pubKeyCredParams: [])
}
