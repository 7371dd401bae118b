internal import COpenSSL

/// HMAC (RFC 2104) with SHA-256.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `data` under `key` (any key length, including empty).
    public static func authenticate(key: [UInt8], data: [UInt8]) -> [UInt8] {
        OpenSSL.mustSucceed {
            let context = try OpenSSLObject(
                EVP_MAC_CTX_dup(template.pointer), "EVP_MAC_CTX_dup", release: { EVP_MAC_CTX_free($0) })
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.withBytes(key) { keyBytes, keyCount in
                try OpenSSL.check(EVP_MAC_init(context.pointer, keyBytes, keyCount, nil), "EVP_MAC_init")
            }
            try OpenSSL.withBytes(data) { bytes, count in
                try OpenSSL.check(EVP_MAC_update(context.pointer, bytes, count), "EVP_MAC_update")
            }
            var out = [UInt8](repeating: 0, count: SHA256.byteCount)
            var length = 0
            try OpenSSL.check(EVP_MAC_final(context.pointer, &out, &length, out.count), "EVP_MAC_final")
            precondition(length == SHA256.byteCount, "HMAC-SHA-256 produced \(length) bytes")
            return out
        }
    }

    /// An HMAC context with SHA-256 selected and no key, copied for every MAC: selecting the
    /// digest by name (in `EVP_MAC_init`) fetches it from the provider each time, which costs
    /// about half of the MAC of a short message. Only ever read (`EVP_MAC_CTX_dup`).
    private static let template = FetchedAlgorithm(
        OpenSSL.mustSucceed {
            let context = try OpenSSL.nonNull(EVP_MAC_CTX_new(FetchedAlgorithms.hmac.pointer), "EVP_MAC_CTX_new")
            var params = [
                OSSL_PARAM_construct_utf8_string(ParameterName.digest.cString, ParameterName.sha256.mutableCString, 0),
                OSSL_PARAM_construct_end(),
            ]
            guard EVP_MAC_CTX_set_params(context, &params) == 1 else {
                EVP_MAC_CTX_free(context)
                throw CryptoError.openSSL("EVP_MAC_CTX_set_params")
            }
            return context
        },
        name: "HMAC-SHA256 context", release: { EVP_MAC_CTX_free($0) })
}
