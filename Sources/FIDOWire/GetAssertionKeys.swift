/// authenticatorGetAssertion request members (CTAP 2.1 §6.2.1).
public enum GetAssertionKey: Int, Sendable, CaseIterable {
    case rpId = 0x01
    case clientDataHash = 0x02
    case allowList = 0x03
    case extensions = 0x04
    case options = 0x05
    case pinUvAuthParam = 0x06
    case pinUvAuthProtocol = 0x07
}

/// authenticatorGetAssertion and authenticatorGetNextAssertion response members (CTAP 2.1
/// §6.2.2, CTAP 2.2 §6.2.2).
public enum GetAssertionResponseKey: Int, Sendable, CaseIterable {
    case credential = 0x01
    case authData = 0x02
    case signature = 0x03
    case user = 0x04
    case numberOfCredentials = 0x05
    case userSelected = 0x06
    case largeBlobKey = 0x07
    case unsignedExtensionOutputs = 0x08
}
