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
        guard key.count == keyByteCount else {
            throw CryptoError.invalidInput("AES256CBC", "key must be \(keyByteCount) bytes, got \(key.count)")
        }
        guard iv.count == blockByteCount else {
            throw CryptoError.invalidInput("AES256CBC", "iv must be \(blockByteCount) bytes, got \(iv.count)")
        }
        guard input.count % blockByteCount == 0 else {
            throw CryptoError.invalidInput(
                "AES256CBC", "data length \(input.count) is not a multiple of \(blockByteCount) (padding is disabled)")
        }
        guard input.count <= Int(Int32.max) - blockByteCount else {
            throw CryptoError.invalidInput("AES256CBC", "data too large (\(input.count) bytes)")
        }
        guard !input.isEmpty else { return [] }

        let context = try OpenSSLObject(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new", release: { EVP_CIPHER_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(
            EVP_CipherInit_ex2(context.pointer, FetchedAlgorithms.aes256CBC.pointer, key, iv, encrypting ? 1 : 0, nil),
            "EVP_CipherInit_ex2")
        try OpenSSL.check(EVP_CIPHER_CTX_set_padding(context.pointer, 0), "EVP_CIPHER_CTX_set_padding")

        var output = [UInt8](repeating: 0, count: input.count + blockByteCount)
        var updateCount: Int32 = 0
        try OpenSSL.check(
            EVP_CipherUpdate(context.pointer, &output, &updateCount, input, Int32(input.count)), "EVP_CipherUpdate")
        var finalCount: Int32 = 0
        try output.withUnsafeMutableBufferPointer { buffer in
            try OpenSSL.check(
                EVP_CipherFinal_ex(context.pointer, buffer.baseAddress! + Int(updateCount), &finalCount),
                "EVP_CipherFinal_ex")
        }
        output.removeLast(output.count - Int(updateCount + finalCount))
        return output
    }
}
