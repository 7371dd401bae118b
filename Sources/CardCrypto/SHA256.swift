internal import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The digest size in bytes (32).
    public static let byteCount = 32

    /// The 32-byte SHA-256 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { digest, initialized in
            data.withUnsafeBytes { copenssl_sha256($0.baseAddress, $0.count, digest.baseAddress) }
            initialized = byteCount
        }
    }

    /// The 32-byte SHA-256 digest of the concatenation of `parts`, computed
    /// incrementally so the parts are never copied into one buffer.
    ///
    /// Disfavored so that a bare `SHA256.hash([])` means the empty message
    /// (the `[UInt8]` overload) instead of being ambiguous.
    @_disfavoredOverload
    public static func hash(_ parts: [[UInt8]]) -> [UInt8] {
        OpenSSL.mustSucceed { try MessageDigest.hash(parts, with: FetchedAlgorithms.sha256) }
    }
}
