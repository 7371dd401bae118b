/// CTAP command bytes as CTAP 2.1 §6 numbers them (and FIDO_2_1_PRE's 0x41), written here from the
/// specification rather than taken from FIDOWire's `CTAPCommand`: the tests check the card against
/// an independent reading, so a renumbering in the code under test is caught, not copied.
public enum CTAPByte {
    /// authenticatorMakeCredential.
    public static let makeCredential: UInt8 = 0x01
    /// authenticatorGetAssertion.
    public static let getAssertion: UInt8 = 0x02
    /// authenticatorGetInfo.
    public static let getInfo: UInt8 = 0x04
    /// authenticatorClientPIN.
    public static let clientPIN: UInt8 = 0x06
    /// authenticatorReset.
    public static let reset: UInt8 = 0x07
    /// authenticatorGetNextAssertion.
    public static let getNextAssertion: UInt8 = 0x08
    /// authenticatorCredentialManagement.
    public static let credentialManagement: UInt8 = 0x0A
    /// authenticatorSelection.
    public static let selection: UInt8 = 0x0B
    /// authenticatorLargeBlobs.
    public static let largeBlobs: UInt8 = 0x0C
    /// authenticatorConfig.
    public static let config: UInt8 = 0x0D
    /// authenticatorCredentialManagement as FIDO_2_1_PRE numbered it.
    public static let credentialManagementPreview: UInt8 = 0x41
}
