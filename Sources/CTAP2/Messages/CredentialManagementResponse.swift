import CBOR
import FIDOWire

/// authenticatorCredentialManagement's answer (CTAP 2.1 §6.8): the members a subcommand returns.
struct CredentialManagementResponse: Sendable, Equatable {
    var existingResidentCredentialsCount: Int?
    var maxPossibleRemainingResidentCredentialsCount: Int?
    var rp: RelyingPartyEntity?
    var rpIDHash: [UInt8]?
    var totalRPs: Int?
    var user: CredentialUser?
    var credentialID: CredentialDescriptor?
    /// The credential's public key, a COSE_Key.
    var publicKey: CBORValue?
    var totalCredentials: Int?
    var credProtect: Int?
    var largeBlobKey: [UInt8]? = nil
    var thirdPartyPayment: Bool? = nil
}

extension CredentialManagementResponse: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, CredentialManagementResponseKey>([
        .optional(.existingResidentCredentialsCount, \.existingResidentCredentialsCount, .count),
        .optional(.maxPossibleRemainingResidentCredentialsCount, \.maxPossibleRemainingResidentCredentialsCount, .count),
        .optional(.rp, \.rp, .message),
        .optional(.rpIDHash, \.rpIDHash, .bytes),
        .optional(.totalRPs, \.totalRPs, .count),
        .optional(.user, \.user, .message),
        .optional(.credentialID, \.credentialID, .message),
        .optional(.publicKey, \.publicKey, .any),
        .optional(.totalCredentials, \.totalCredentials, .count),
        .optional(.credProtect, \.credProtect, .count),
        .optional(.largeBlobKey, \.largeBlobKey, .bytes),
        .optional(.thirdPartyPayment, \.thirdPartyPayment, .bool),
    ])
    static let initial = CredentialManagementResponse()
}
