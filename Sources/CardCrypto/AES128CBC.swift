internal import COpenSSL

/// AES-128 in CBC mode without padding, for the few places a specification asks for it (CTAP 2.2
/// encIdentifier and encCredStoreState).
public enum AES128CBC {
    /// The AES-128 key length in bytes (16).
    public static let keyByteCount = 16

    /// Encrypts whole blocks; throws `CryptoError(function: "AES128CBC", ...)` for any wrong length.
    public static func encrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        try CBCCipher.crypt(FetchedAlgorithms.aes128CBC, name: "AES128CBC", keyByteCount: keyByteCount,
                            key: key, iv: iv, input: plaintext, encrypting: true)
    }

    /// Decrypts whole blocks; throws `CryptoError(function: "AES128CBC", ...)` for any wrong length.
    public static func decrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws -> [UInt8] {
        try CBCCipher.crypt(FetchedAlgorithms.aes128CBC, name: "AES128CBC", keyByteCount: keyByteCount,
                            key: key, iv: iv, input: ciphertext, encrypting: false)
    }
}
