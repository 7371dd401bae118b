internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` cryptographically secure random bytes (RAND_bytes). Traps only if the RNG is broken.
    ///
    /// - Precondition: `0 <= count <= Int32.max`.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: invalid count \(count)")
        guard count > 0 else { return [] }
        return OpenSSL.mustSucceed {
            var out = [UInt8](repeating: 0, count: count)
            try OpenSSL.check(RAND_bytes(&out, Int32(count)), "RAND_bytes")
            return out
        }
    }
}
