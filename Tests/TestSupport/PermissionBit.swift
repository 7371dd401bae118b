/// The permission bits of getPinUvAuthTokenUsingPinWithPermissions (CTAP 2.1 §6.5.5.7; pcmr is
/// CTAP 2.2's), written from the specification rather than taken from FIDOWire's
/// `PINUVAuthPermissions`, for the same reason as ``CTAPByte``.
public enum PermissionBit {
    /// `mc`.
    public static let makeCredential: UInt64 = 0x01
    /// `ga`.
    public static let getAssertion: UInt64 = 0x02
    /// `cm`.
    public static let credentialManagement: UInt64 = 0x04
    /// `be`.
    public static let bioEnrollment: UInt64 = 0x08
    /// `lbw`.
    public static let largeBlobWrite: UInt64 = 0x10
    /// `acfg`.
    public static let authenticatorConfig: UInt64 = 0x20
    /// `pcmr`.
    public static let persistentCredentialManagementReadOnly: UInt64 = 0x40
}
