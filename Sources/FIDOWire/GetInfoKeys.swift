/// authenticatorGetInfo response members (CTAP 2.1 §6.4, CTAP 2.2 §6.4).
public enum GetInfoKey: Int, Sendable, CaseIterable {
    case versions = 0x01
    case extensions = 0x02
    case aaguid = 0x03
    case options = 0x04
    case maxMsgSize = 0x05
    case pinUvAuthProtocols = 0x06
    case maxCredentialCountInList = 0x07
    case maxCredentialIdLength = 0x08
    case transports = 0x09
    case algorithms = 0x0A
    case maxSerializedLargeBlobArray = 0x0B
    case forcePINChange = 0x0C
    case minPINLength = 0x0D
    case firmwareVersion = 0x0E
    case maxCredBlobLength = 0x0F
    case maxRPIDsForSetMinPINLength = 0x10
    case preferredPlatformUvAttempts = 0x11
    case uvModality = 0x12
    case certifications = 0x13
    case remainingDiscoverableCredentials = 0x14
    case vendorPrototypeConfigCommands = 0x15
    case attestationFormats = 0x16
    case uvCountSinceLastPinEntry = 0x17
    case longTouchForReset = 0x18
    case encIdentifier = 0x19
    case transportsForReset = 0x1A
    case pinComplexityPolicy = 0x1B
    case pinComplexityPolicyURL = 0x1C
    case maxPINLength = 0x1D
    case encCredStoreState = 0x1E
    case authenticatorConfigCommands = 0x1F
}
