internal import COpenSSL

/// Comparisons whose running time does not depend on secret contents.
public enum ConstantTime {
    /// Constant-time equality (CRYPTO_memcmp); false when lengths differ (length is not secret).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
