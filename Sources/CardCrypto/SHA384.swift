/// SHA-384 (FIPS 180-4), the digest of ES384.
public enum SHA384 {
    /// The digest size in bytes (48).
    public static let byteCount = 48

    /// The 48-byte SHA-384 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha384.hash(data)
    }
}
