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
    func rpIDHash() throws(CTAPStatus) -> [UInt8] {
        guard let parameters = subCommandParams else { throw .missingParameter }
        return try RequestMap<CredentialManagementParameterKey>(value: .map(parameters)).requiredBytes(.rpIDHash)
    }

    /// subCommandParams' credentialID (deleteCredential, updateUserInformation).
    func credentialID() throws(CTAPStatus) -> CredentialDescriptor {
        guard let parameters = subCommandParams,
              let descriptor = parameters[int: CredentialManagementParameterKey.credentialID.rawValue] else {
            throw .missingParameter
        }
        return try CredentialDescriptor(decoding: descriptor)
    }

    /// subCommandParams' user (updateUserInformation).
    func user() throws(CTAPStatus) -> CredentialUser {
        guard let parameters = subCommandParams else { throw .missingParameter }
        let map = try RequestMap<CredentialManagementParameterKey>(value: .map(parameters))
        return try CredentialUser(decoding: try map.requiredEntity(.user))
    }
}
