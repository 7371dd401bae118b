extension CTAPCommand {
    /// The specification's name of top-level member `key` of this command's request map, e.g.
    /// `clientDataHash`, so a report can say `request.clientDataHash{1}` rather than `{1}`.
    public func requestMemberName(_ key: Int) -> String? {
        switch self {
        case .makeCredential: MakeCredentialKey(rawValue: key).map { "\($0)" }
        case .getAssertion: GetAssertionKey(rawValue: key).map { "\($0)" }
        case .clientPIN: ClientPINKey(rawValue: key).map { "\($0)" }
        case .credentialManagement, .credentialManagementPreview: CredentialManagementKey(rawValue: key).map { "\($0)" }
        case .config: ConfigKey(rawValue: key).map { "\($0)" }
        case .largeBlobs: LargeBlobsKey(rawValue: key).map { "\($0)" }
        default: nil
        }
    }

    /// The specification's name of top-level member `key` of this command's response map.
    public func responseMemberName(_ key: Int) -> String? {
        switch self {
        case .makeCredential: MakeCredentialResponseKey(rawValue: key).map { "\($0)" }
        case .getAssertion, .getNextAssertion: GetAssertionResponseKey(rawValue: key).map { "\($0)" }
        case .getInfo: GetInfoKey(rawValue: key).map { "\($0)" }
        case .clientPIN: ClientPINResponseKey(rawValue: key).map { "\($0)" }
        case .credentialManagement, .credentialManagementPreview: CredentialManagementResponseKey(rawValue: key).map { "\($0)" }
        case .largeBlobs: LargeBlobsResponseKey(rawValue: key).map { "\($0)" }
        default: nil
        }
    }

    /// The key of the pinUvAuthParam member in this command's request map, for the commands
    /// that carry one (CTAP 2.1 §6.1–§6.11; bioEnrollment 0x05; the FIDO_2_1_PRE forms 0x40 and
    /// 0x41 as their later numbers): the one table the trace, the transcript replay and the
    /// stand-in read.
    public var pinUvAuthParamKey: Int? {
        switch self {
        case .makeCredential: MakeCredentialKey.pinUvAuthParam.rawValue
        case .getAssertion: GetAssertionKey.pinUvAuthParam.rawValue
        case .clientPIN: ClientPINKey.pinUvAuthParam.rawValue
        case .credentialManagement, .credentialManagementPreview: CredentialManagementKey.pinUvAuthParam.rawValue
        case .largeBlobs: LargeBlobsKey.pinUvAuthParam.rawValue
        case .config: ConfigKey.pinUvAuthParam.rawValue
        case .bioEnrollment, .bioEnrollmentPreview: 0x05
        case .getInfo, .reset, .getNextAssertion, .selection: nil
        }
    }
}
