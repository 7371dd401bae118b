/// The authenticator API command bytes a platform sends (CTAP 2.1 §6).
public enum CTAPCommandCode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case makeCredential = 0x01
    case getAssertion = 0x02
    case getInfo = 0x04
    case clientPIN = 0x06
    case reset = 0x07
    case getNextAssertion = 0x08
    case credentialManagement = 0x0A
    case selection = 0x0B
    /// authenticatorCredentialManagement as FIDO_2_1_PRE cards number it (option `credentialMgmtPreview`).
    case credentialManagementPreview = 0x41

    /// The command's name in CTAP 2.1, e.g. `authenticatorMakeCredential`.
    public var description: String {
        switch self {
        case .makeCredential: "authenticatorMakeCredential"
        case .getAssertion: "authenticatorGetAssertion"
        case .getInfo: "authenticatorGetInfo"
        case .clientPIN: "authenticatorClientPIN"
        case .reset: "authenticatorReset"
        case .getNextAssertion: "authenticatorGetNextAssertion"
        case .credentialManagement: "authenticatorCredentialManagement"
        case .selection: "authenticatorSelection"
        case .credentialManagementPreview: "authenticatorCredentialManagement (preview)"
        }
    }
}
