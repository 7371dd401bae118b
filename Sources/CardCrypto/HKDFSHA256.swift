internal import COpenSSL

/// HKDF (RFC 5869) with SHA-256.
public enum HKDFSHA256 {
    /// The largest output RFC 5869 allows for SHA-256: 255 × 32 bytes.
    public static let maximumOutputByteCount = 255 * SHA256.byteCount

    /// RFC 5869 extract-and-expand.
    ///
    /// An empty `salt` means the RFC's default (32 zero bytes); empty `info` and
    /// empty `inputKeyMaterial` are allowed.
    ///
    /// - Precondition: `0 <= outputByteCount <= maximumOutputByteCount`.
    public static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int) -> [UInt8] {
        precondition(
            outputByteCount >= 0 && outputByteCount <= maximumOutputByteCount,
            "HKDFSHA256: outputByteCount \(outputByteCount) outside 0...\(maximumOutputByteCount)")
        guard outputByteCount > 0 else { return [] }
        return OpenSSL.mustSucceed {
            let context = try OpenSSLObject(
                EVP_KDF_CTX_new(FetchedAlgorithms.hkdf.pointer), "EVP_KDF_CTX_new", release: { EVP_KDF_CTX_free($0) })
            defer { withExtendedLifetime(context) {} }
            var out = [UInt8](repeating: 0, count: outputByteCount)
            try OpenSSL.withBytes(inputKeyMaterial) { ikm, ikmCount in
                try OpenSSL.withBytes(salt) { saltBytes, saltCount in
                    try OpenSSL.withBytes(info) { infoBytes, infoCount in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(
                                ParameterName.digest.cString, ParameterName.sha256.mutableCString, 0),
                            OSSL_PARAM_construct_octet_string(
                                ParameterName.key.cString, UnsafeMutableRawPointer(mutating: ikm), ikmCount),
                            OSSL_PARAM_construct_octet_string(
                                ParameterName.salt.cString, UnsafeMutableRawPointer(mutating: saltBytes), saltCount),
                            OSSL_PARAM_construct_octet_string(
                                ParameterName.info.cString, UnsafeMutableRawPointer(mutating: infoBytes), infoCount),
                            OSSL_PARAM_construct_end(),
                        ]
                        try OpenSSL.check(EVP_KDF_derive(context.pointer, &out, out.count, &params), "EVP_KDF_derive")
                    }
                }
            }
            return out
        }
    }
}
