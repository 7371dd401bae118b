/// authenticatorGetAssertion request members (CTAP 2.1 §6.2.1).
public enum GetAssertionKey: Int, Sendable, CaseIterable {
    case rpId = 0x01, clientDataHash = 0x02, allowList = 0x03, extensions = 0x04, options = 0x05
    case pinUvAuthParam = 0x06, pinUvAuthProtocol = 0x07
}

/// authenticatorGetAssertion and authenticatorGetNextAssertion response members (CTAP 2.1
/// §6.2.2, CTAP 2.2 §6.2.2).
public enum GetAssertionResponseKey: Int, Sendable, CaseIterable {
    case credential = 0x01, authData = 0x02, signature = 0x03, user = 0x04, numberOfCredentials = 0x05
    case userSelected = 0x06, largeBlobKey = 0x07, unsignedExtensionOutputs = 0x08
}
