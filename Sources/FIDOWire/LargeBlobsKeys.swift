/// authenticatorLargeBlobs request members (CTAP 2.1 §6.10.2).
public enum LargeBlobsKey: Int, Sendable, CaseIterable {
    case get = 0x01, set = 0x02, offset = 0x03, length = 0x04, pinUvAuthParam = 0x05
    case pinUvAuthProtocol = 0x06
}

/// authenticatorLargeBlobs response members (CTAP 2.1 §6.10.2).
public enum LargeBlobsResponseKey: Int, Sendable, CaseIterable {
    case config = 0x01
}
