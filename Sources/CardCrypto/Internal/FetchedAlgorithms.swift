internal import COpenSSL

/// The algorithm implementations CardCrypto uses, each fetched from OpenSSL's
/// default provider once (lazily, thread-safely) instead of on every call.
enum FetchedAlgorithms {
    /// SHA-256 (`EVP_MD`).
    static let sha256 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA256", nil), name: "SHA256", release: { EVP_MD_free($0) })
    /// SHA-384 (`EVP_MD`), the digest of ES384.
    static let sha384 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA384", nil), name: "SHA384", release: { EVP_MD_free($0) })
    /// SHA-512 (`EVP_MD`), the digest of ES512.
    static let sha512 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA512", nil), name: "SHA512", release: { EVP_MD_free($0) })
    /// SHA-1 (`EVP_MD`), only for X.509 key identifiers (RFC 5280 §4.2.1.2 method 1).
    static let sha1 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA1", nil), name: "SHA1", release: { EVP_MD_free($0) })
    /// HMAC (`EVP_MAC`).
    static let hmac = FetchedAlgorithm(EVP_MAC_fetch(nil, "HMAC", nil), name: "HMAC", release: { EVP_MAC_free($0) })
    /// HKDF (`EVP_KDF`).
    static let hkdf = FetchedAlgorithm(EVP_KDF_fetch(nil, "HKDF", nil), name: "HKDF", release: { EVP_KDF_free($0) })
    /// AES-128 in CBC mode (`EVP_CIPHER`).
    static let aes128CBC = FetchedAlgorithm(EVP_CIPHER_fetch(nil, "AES-128-CBC", nil), name: "AES-128-CBC", release: { EVP_CIPHER_free($0) })
    /// AES-256 in CBC mode (`EVP_CIPHER`).
    static let aes256CBC = FetchedAlgorithm(EVP_CIPHER_fetch(nil, "AES-256-CBC", nil), name: "AES-256-CBC", release: { EVP_CIPHER_free($0) })
    /// The P-256 group (`EC_GROUP`), for scalar checks and point arithmetic. Building it
    /// (curve parameters, Montgomery contexts) costs more than an ECDSA signature; OpenSSL only
    /// reads a group it is given as `const`, so one is shared.
    static let p256Group = FetchedAlgorithm(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), name: "EC group P-256",
                                            release: { EC_GROUP_free($0) })
    /// The P-384 group (`EC_GROUP`), shared like `p256Group`.
    static let p384Group = FetchedAlgorithm(EC_GROUP_new_by_curve_name(NID_secp384r1), name: "EC group P-384",
                                            release: { EC_GROUP_free($0) })
    /// The P-521 group (`EC_GROUP`), shared like `p256Group`.
    static let p521Group = FetchedAlgorithm(EC_GROUP_new_by_curve_name(NID_secp521r1), name: "EC group P-521",
                                            release: { EC_GROUP_free($0) })
    /// The secp256k1 group (`EC_GROUP`), shared like `p256Group`.
    static let secp256k1Group = FetchedAlgorithm(EC_GROUP_new_by_curve_name(NID_secp256k1), name: "EC group secp256k1",
                                                 release: { EC_GROUP_free($0) })
}
