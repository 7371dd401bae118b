/// pinUvAuthToken permissions (CTAP 2.1 §6.5.5.7).
public struct TokenPermissions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `mc`: authenticatorMakeCredential.
    public static let makeCredential = TokenPermissions(rawValue: 0x01)
    /// `ga`: authenticatorGetAssertion.
    public static let getAssertion = TokenPermissions(rawValue: 0x02)
    /// `cm`: authenticatorCredentialManagement.
    public static let credentialManagement = TokenPermissions(rawValue: 0x04)
    /// `be`: authenticatorBioEnrollment.
    public static let bioEnrollment = TokenPermissions(rawValue: 0x08)
    /// `lbw`: largeBlobs write.
    public static let largeBlobWrite = TokenPermissions(rawValue: 0x10)
    /// `acfg`: authenticatorConfig.
    public static let authenticatorConfiguration = TokenPermissions(rawValue: 0x20)
}
