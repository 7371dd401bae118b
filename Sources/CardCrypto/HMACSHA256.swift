internal import COpenSSL

/// HMAC (RFC 2104) with SHA-256.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `data` under `key` (any key length, including empty).
    public static func authenticate(key: [UInt8], data: [UInt8]) -> [UInt8] {
        OpenSSL.mustSucceed {
            let context = try OpenSSLObject(
                EVP_MAC_CTX_new(FetchedAlgorithms.hmac.pointer), "EVP_MAC_CTX_new", release: { EVP_MAC_CTX_free($0) })
            defer { withExtendedLifetime(context) {} }
            var params = [
                OSSL_PARAM_construct_utf8_string(ParameterName.digest.cString, ParameterName.sha256.mutableCString, 0),
                OSSL_PARAM_construct_end(),
            ]
            try OpenSSL.withBytes(key) { keyBytes, keyCount in
                try OpenSSL.check(EVP_MAC_init(context.pointer, keyBytes, keyCount, &params), "EVP_MAC_init")
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
}
