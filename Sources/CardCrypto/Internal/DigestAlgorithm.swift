internal import COpenSSL

/// The SHA-2 digests the signature algorithms use, each with its prefetched `EVP_MD` and a
/// keyless HMAC context to copy (RFC 6979 nonces use HMAC with the signature's own hash).
enum DigestAlgorithm: Sendable {
    case sha256, sha384, sha512

    /// The digest size in bytes.
    var byteCount: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The fetched `EVP_MD`.
    var fetched: FetchedAlgorithm {
        switch self {
        case .sha256: FetchedAlgorithms.sha256
        case .sha384: FetchedAlgorithms.sha384
        case .sha512: FetchedAlgorithms.sha512
        }
    }

    /// An HMAC context with this digest selected and no key, only ever copied (`EVP_MAC_CTX_dup`).
    var hmacTemplate: FetchedAlgorithm {
        switch self {
        case .sha256: Self.hmacSHA256
        case .sha384: Self.hmacSHA384
        case .sha512: Self.hmacSHA512
        }
    }

    /// The digest of `data`.
    func hash(_ data: [UInt8]) -> [UInt8] {
        OpenSSL.mustSucceed { try MessageDigest.hash(data, with: fetched) }
    }

    /// The HMAC of the concatenation of `parts` under `key` (parts are fed one by one, never joined).
    func authenticate(key: [UInt8], parts: [[UInt8]]) -> [UInt8] {
        OpenSSL.mustSucceed {
            let context = try OpenSSLObject(
                EVP_MAC_CTX_dup(hmacTemplate.pointer), "EVP_MAC_CTX_dup", release: { EVP_MAC_CTX_free($0) })
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.withBytes(key) { keyBytes, keyCount in
                try OpenSSL.check(EVP_MAC_init(context.pointer, keyBytes, keyCount, nil), "EVP_MAC_init")
            }
            for part in parts where !part.isEmpty {
                try part.withUnsafeBufferPointer { buffer in
                    try OpenSSL.check(EVP_MAC_update(context.pointer, buffer.baseAddress, buffer.count), "EVP_MAC_update")
                }
            }
            var out = [UInt8](repeating: 0, count: byteCount)
            var length = 0
            try OpenSSL.check(EVP_MAC_final(context.pointer, &out, &length, out.count), "EVP_MAC_final")
            precondition(length == byteCount, "HMAC produced \(length) bytes, expected \(byteCount)")
            return out
        }
    }

    /// The `OSSL_PARAM` digest name.
    private var parameterName: StaticString {
        switch self {
        case .sha256: ParameterName.sha256
        case .sha384: ParameterName.sha384
        case .sha512: ParameterName.sha512
        }
    }

    // Selecting the digest by name (in `EVP_MAC_init`) fetches it from the provider each time,
    // which costs about half of the MAC of a short message; a template is configured once.
    private static let hmacSHA256 = makeHMACTemplate(.sha256)
    private static let hmacSHA384 = makeHMACTemplate(.sha384)
    private static let hmacSHA512 = makeHMACTemplate(.sha512)

    private static func makeHMACTemplate(_ digest: DigestAlgorithm) -> FetchedAlgorithm {
        FetchedAlgorithm(
            OpenSSL.mustSucceed {
                let context = try OpenSSL.nonNull(EVP_MAC_CTX_new(FetchedAlgorithms.hmac.pointer), "EVP_MAC_CTX_new")
                var params = [
                    OSSL_PARAM_construct_utf8_string(ParameterName.digest.cString, digest.parameterName.mutableCString, 0),
                    OSSL_PARAM_construct_end(),
                ]
                guard EVP_MAC_CTX_set_params(context, &params) == 1 else {
                    EVP_MAC_CTX_free(context)
                    throw CryptoError.openSSL("EVP_MAC_CTX_set_params")
                }
                return context
            },
            name: "HMAC context", release: { EVP_MAC_CTX_free($0) })
    }
}
