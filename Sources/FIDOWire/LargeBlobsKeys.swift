/// authenticatorLargeBlobs request members (CTAP 2.1 §6.10.2).
public enum LargeBlobsKey: Int, Sendable, CaseIterable {
    case get = 0x01
    case set = 0x02
    case offset = 0x03
    case length = 0x04
    case pinUvAuthParam = 0x05
    case pinUvAuthProtocol = 0x06
}

/// authenticatorLargeBlobs response members (CTAP 2.1 §6.10.2).
public enum LargeBlobsResponseKey: Int, Sendable, CaseIterable {
    case config = 0x01
}
