import CBOR
import FIDOWire

/// authenticatorMakeCredential's answer (CTAP 2.1 §6.1.2): the attestation object's parts.
struct MakeCredentialResponse: Sendable, Equatable {
    /// The attestation statement format: `packed` or `none`.
    var fmt: String
    var authData: [UInt8]
    var attStmt: CBORValue
    /// Whether the attestation is an enterprise attestation.
    var epAtt: Bool? = nil
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for one.
    var largeBlobKey: [UInt8]? = nil
}

extension MakeCredentialResponse: CTAPMessage, DeclaredMembers {
    /// unsignedExtensionOutputs (CTAP 2.2) is not read: skipped as any unknown member.
    static let members = MessageMembers<Self, MakeCredentialResponseKey>([
        .required(.fmt, \.fmt, .text),
        .required(.authData, \.authData, .bytes),
        .required(.attStmt, \.attStmt, .any),
        .optional(.epAtt, \.epAtt, .bool),
        .optional(.largeBlobKey, \.largeBlobKey, .bytes),
    ])
    static let initial = MakeCredentialResponse(fmt: "", authData: [], attStmt: .null)
}
