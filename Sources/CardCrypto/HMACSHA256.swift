/// HMAC (RFC 2104) with SHA-256.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `data` under `key` (any key length, including empty).
    public static func authenticate(key: [UInt8], data: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha256.authenticate(key: key, parts: [data])
    }
}
