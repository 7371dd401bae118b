/// SHA-512 (FIPS 180-4), the digest of ES512.
public enum SHA512 {
    /// The digest size in bytes (64).
    public static let byteCount = 64

    /// The 64-byte SHA-512 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha512.hash(data)
    }
}
