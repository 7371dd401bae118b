/// authenticatorMakeCredential request members (CTAP 2.1 §6.1.1, CTAP 2.2 §6.1.1).
public enum MakeCredentialKey: Int, Sendable, CaseIterable {
    case clientDataHash = 0x01, rp = 0x02, user = 0x03, pubKeyCredParams = 0x04, excludeList = 0x05
    case extensions = 0x06, options = 0x07, pinUvAuthParam = 0x08, pinUvAuthProtocol = 0x09
    case enterpriseAttestation = 0x0A, attestationFormatsPreference = 0x0B
}

/// authenticatorMakeCredential response members (CTAP 2.1 §6.1.2, CTAP 2.2 §6.1.2).
public enum MakeCredentialResponseKey: Int, Sendable, CaseIterable {
    case fmt = 0x01, authData = 0x02, attStmt = 0x03, epAtt = 0x04, largeBlobKey = 0x05
    case unsignedExtensionOutputs = 0x06
}
