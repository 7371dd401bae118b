/// authenticatorGetInfo response members (CTAP 2.1 §6.4, CTAP 2.2 §6.4).
public enum GetInfoKey: Int, Sendable, CaseIterable {
    case versions = 0x01, extensions = 0x02, aaguid = 0x03, options = 0x04, maxMsgSize = 0x05
    case pinUvAuthProtocols = 0x06, maxCredentialCountInList = 0x07, maxCredentialIdLength = 0x08
    case transports = 0x09, algorithms = 0x0A, maxSerializedLargeBlobArray = 0x0B, forcePINChange = 0x0C
    case minPINLength = 0x0D, firmwareVersion = 0x0E, maxCredBlobLength = 0x0F
    case maxRPIDsForSetMinPINLength = 0x10, preferredPlatformUvAttempts = 0x11, uvModality = 0x12
    case certifications = 0x13, remainingDiscoverableCredentials = 0x14
    case vendorPrototypeConfigCommands = 0x15, attestationFormats = 0x16
    case uvCountSinceLastPinEntry = 0x17, longTouchForReset = 0x18, encIdentifier = 0x19
    case transportsForReset = 0x1A, pinComplexityPolicy = 0x1B, pinComplexityPolicyURL = 0x1C
    case maxPINLength = 0x1D, encCredStoreState = 0x1E, authenticatorConfigCommands = 0x1F
}
