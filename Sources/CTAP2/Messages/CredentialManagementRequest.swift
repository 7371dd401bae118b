import CBOR
import FIDOWire

/// authenticatorCredentialManagement's parameters (CTAP 2.1 §6.8), read and type-checked;
/// subCommandParams are `rpIDHash` (0x01), `credentialID` (0x02), `user` (0x03).
typealias CredentialManagementRequest = SubcommandRequest<CredentialManagementKey>

extension SubcommandRequest where Key == CredentialManagementKey {
    /// The subcommand, or nil for a number the specification does not define.
    var subcommand: CredentialManagementSubcommand? {
        CredentialManagementSubcommand(rawValue: Int(clamping: subCommand))
    }

    /// What pinUvAuthParam authenticates: subCommand ‖ subCommandParams as received (CTAP 2.1 §6.8.2).
    var authenticatedMessage: [UInt8] { authenticatedMessage(after: []) }

    /// subCommandParams' rpIDHash (enumerateCredentialsBegin).
    func rpIDHash() throws(CTAPStatus) -> [UInt8] { try parameters().rpIDHash.required() }

    /// subCommandParams' credentialID (deleteCredential, updateUserInformation).
    func credentialID() throws(CTAPStatus) -> CredentialDescriptor { try parameters().credentialID.required() }

    /// subCommandParams' user (updateUserInformation).
    func user() throws(CTAPStatus) -> CredentialUser { try parameters().user.required() }

    /// subCommandParams read (absent: MISSING_PARAMETER, whatever the subcommand asks for).
    private func parameters() throws(CTAPStatus) -> CredentialManagementParameters {
        guard let parameters = subCommandParams else { throw .missingParameter }
        return try CredentialManagementParameters(decoding: parameters[...])
    }
}

/// credentialManagement's subCommandParams (CTAP 2.1 §6.8), each member as read: a subcommand
/// judges the one it takes, and a wrong type in another is none of its business.
struct CredentialManagementParameters: CTAPParseable, DeclaredMembers {
    var rpIDHash = Member<[UInt8]>.absent
    var credentialID = Member<CredentialDescriptor>.absent
    var user = Member<CredentialUser>.absent

    static let members = MessageMembers<Self, CredentialManagementParameterKey>([
        .kept(.rpIDHash, \.rpIDHash, .bytes), .kept(.credentialID, \.credentialID, .message), .kept(.user, \.user, .message),
    ])
    static let initial = CredentialManagementParameters()
}
