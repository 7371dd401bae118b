internal import COpenSSL

/// One-shot and multi-part hashing with a prefetched `EVP_MD`.
enum MessageDigest {
    /// The digest of `data` (`EVP_Digest`).
    static func hash(_ data: [UInt8], with algorithm: FetchedAlgorithm) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        try OpenSSL.withBytes(data) { bytes, count in
            try OpenSSL.check(EVP_Digest(bytes, count, &out, &length, algorithm.pointer, nil), "EVP_Digest")
        }
        return Array(out.prefix(Int(length)))
    }

    /// The digest of the concatenation of `parts`, fed to one `EVP_MD_CTX` without joining them.
    static func hash(_ parts: [[UInt8]], with algorithm: FetchedAlgorithm) throws -> [UInt8] {
        let context = try OpenSSLObject(EVP_MD_CTX_new(), "EVP_MD_CTX_new", release: { EVP_MD_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_DigestInit_ex2(context.pointer, algorithm.pointer, nil), "EVP_DigestInit_ex2")
        for part in parts where !part.isEmpty {
            try part.withUnsafeBytes { buffer in
                try OpenSSL.check(EVP_DigestUpdate(context.pointer, buffer.baseAddress, buffer.count), "EVP_DigestUpdate")
            }
        }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        try OpenSSL.check(EVP_DigestFinal_ex(context.pointer, &out, &length), "EVP_DigestFinal_ex")
        return Array(out.prefix(Int(length)))
    }
}
