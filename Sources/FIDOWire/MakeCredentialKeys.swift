/// authenticatorMakeCredential request members (CTAP 2.1 §6.1.1, CTAP 2.2 §6.1.1).
public enum MakeCredentialKey: Int, Sendable, CaseIterable {
    case clientDataHash = 0x01
    case rp = 0x02
    case user = 0x03
    case pubKeyCredParams = 0x04
    case excludeList = 0x05
    case extensions = 0x06
    case options = 0x07
    case pinUvAuthParam = 0x08
    case pinUvAuthProtocol = 0x09
    case enterpriseAttestation = 0x0A
    case attestationFormatsPreference = 0x0B
}

/// authenticatorMakeCredential response members (CTAP 2.1 §6.1.2, CTAP 2.2 §6.1.2).
public enum MakeCredentialResponseKey: Int, Sendable, CaseIterable {
    case fmt = 0x01
    case authData = 0x02
    case attStmt = 0x03
    case epAtt = 0x04
    case largeBlobKey = 0x05
    case unsignedExtensionOutputs = 0x06
}
