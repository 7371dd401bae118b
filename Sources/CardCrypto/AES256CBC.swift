internal import COpenSSL

/// AES-256 in CBC mode without padding (callers frame their data in whole blocks).
public enum AES256CBC {
    /// The AES block size in bytes (16); also the IV length.
    public static let blockByteCount = 16
    /// The AES-256 key length in bytes (32).
    public static let keyByteCount = 32

    /// No padding: plaintext/ciphertext length must be a multiple of 16, key 32 bytes, iv 16 bytes; otherwise throws CryptoError(function: "AES256CBC", ...).
    public static func encrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        try crypt(key: key, iv: iv, input: plaintext, encrypting: true)
    }

    /// Decrypts `ciphertext` (a multiple of 16 bytes) with a 32-byte `key` and 16-byte `iv`, without
    /// padding; throws `CryptoError(function: "AES256CBC", ...)` for any wrong length.
    public static func decrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws -> [UInt8] {
        try crypt(key: key, iv: iv, input: ciphertext, encrypting: false)
    }

    private static func crypt(key: [UInt8], iv: [UInt8], input: [UInt8], encrypting: Bool) throws -> [UInt8] {
        try CBCCipher.crypt(FetchedAlgorithms.aes256CBC, name: "AES256CBC", keyByteCount: keyByteCount,
                            key: key, iv: iv, input: input, encrypting: encrypting)
    }
}
