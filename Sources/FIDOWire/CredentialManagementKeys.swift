/// authenticatorCredentialManagement subcommands (CTAP 2.1 §6.8).
public enum CredentialManagementSubcommand: Int, Sendable, CaseIterable {
    case getCredsMetadata = 0x01
    case enumerateRPsBegin = 0x02
    case enumerateRPsGetNextRP = 0x03
    case enumerateCredentialsBegin = 0x04
    case enumerateCredentialsGetNextCredential = 0x05
    case deleteCredential = 0x06
    case updateUserInformation = 0x07

    /// The "next" subcommands continue a begin and carry no pinUvAuthParam.
    public var continuesEnumeration: Bool {
        self == .enumerateRPsGetNextRP || self == .enumerateCredentialsGetNextCredential
    }
}

/// authenticatorCredentialManagement request members (CTAP 2.1 §6.8).
public enum CredentialManagementKey: Int, Sendable, CaseIterable {
    case subCommand = 0x01
    case subCommandParams = 0x02
    case pinUvAuthProtocol = 0x03
    case pinUvAuthParam = 0x04
}

/// Members of authenticatorCredentialManagement's subCommandParams (CTAP 2.1 §6.8).
public enum CredentialManagementParameterKey: Int, Sendable, CaseIterable {
    case rpIDHash = 0x01
    case credentialID = 0x02
    case user = 0x03
}

/// authenticatorCredentialManagement response members (CTAP 2.1 §6.8, CTAP 2.2 §6.8).
public enum CredentialManagementResponseKey: Int, Sendable, CaseIterable {
    case existingResidentCredentialsCount = 0x01
    case maxPossibleRemainingResidentCredentialsCount = 0x02
    case rp = 0x03
    case rpIDHash = 0x04
    case totalRPs = 0x05
    case user = 0x06
    case credentialID = 0x07
    case publicKey = 0x08
    case totalCredentials = 0x09
    case credProtect = 0x0A
    case largeBlobKey = 0x0B
    case thirdPartyPayment = 0x0C
}
