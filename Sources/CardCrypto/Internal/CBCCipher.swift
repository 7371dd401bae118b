internal import COpenSSL

/// A block cipher in CBC mode without padding: the one implementation behind AES256CBC and AES128CBC.
enum CBCCipher {
    static let blockByteCount = 16

    static func crypt(_ cipher: FetchedAlgorithm, name: String, keyByteCount: Int, key: [UInt8], iv: [UInt8],
                      input: [UInt8], encrypting: Bool) throws -> [UInt8] {
        guard key.count == keyByteCount else {
            throw CryptoError.invalidInput(name, "key must be \(keyByteCount) bytes, got \(key.count)")
        }
        guard iv.count == blockByteCount else {
            throw CryptoError.invalidInput(name, "iv must be \(blockByteCount) bytes, got \(iv.count)")
        }
        guard input.count % blockByteCount == 0 else {
            throw CryptoError.invalidInput(
                name, "data length \(input.count) is not a multiple of \(blockByteCount) (padding is disabled)")
        }
        guard input.count <= Int(Int32.max) - blockByteCount else {
            throw CryptoError.invalidInput(name, "data too large (\(input.count) bytes)")
        }
        guard !input.isEmpty else { return [] }

        let context = try OpenSSLObject(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new", release: { EVP_CIPHER_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_CipherInit_ex2(context.pointer, cipher.pointer, key, iv, encrypting ? 1 : 0, nil),
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
