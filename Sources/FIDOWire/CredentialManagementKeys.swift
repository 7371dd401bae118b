/// authenticatorCredentialManagement subcommands (CTAP 2.1 §6.8).
public enum CredentialManagementSubcommand: Int, Sendable, CaseIterable {
    case getCredsMetadata = 0x01, enumerateRPsBegin = 0x02, enumerateRPsGetNextRP = 0x03
    case enumerateCredentialsBegin = 0x04, enumerateCredentialsGetNextCredential = 0x05
    case deleteCredential = 0x06, updateUserInformation = 0x07

    /// The "next" subcommands continue a begin and carry no pinUvAuthParam.
    public var continuesEnumeration: Bool {
        self == .enumerateRPsGetNextRP || self == .enumerateCredentialsGetNextCredential
    }
}

/// authenticatorCredentialManagement request members (CTAP 2.1 §6.8).
public enum CredentialManagementKey: Int, Sendable, CaseIterable {
    case subCommand = 0x01, subCommandParams = 0x02, pinUvAuthProtocol = 0x03, pinUvAuthParam = 0x04
}

/// Members of authenticatorCredentialManagement's subCommandParams (CTAP 2.1 §6.8).
public enum CredentialManagementParameterKey: Int, Sendable, CaseIterable {
    case rpIDHash = 0x01, credentialID = 0x02, user = 0x03
}

/// authenticatorCredentialManagement response members (CTAP 2.1 §6.8, CTAP 2.2 §6.8).
public enum CredentialManagementResponseKey: Int, Sendable, CaseIterable {
    case existingResidentCredentialsCount = 0x01, maxPossibleRemainingResidentCredentialsCount = 0x02
    case rp = 0x03, rpIDHash = 0x04, totalRPs = 0x05, user = 0x06, credentialID = 0x07, publicKey = 0x08
    case totalCredentials = 0x09, credProtect = 0x0A, largeBlobKey = 0x0B, thirdPartyPayment = 0x0C
}
