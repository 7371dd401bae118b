/// `OSSL_PARAM` keys and fixed string values as static C strings.
///
/// An `OSSL_PARAM` (and an `OSSL_PARAM_BLD`) stores its key pointer without
/// copying it, so the key must outlive the array. The `core_names.h` macros are
/// imported into Swift as `String`, whose bridged C pointer only lives for one
/// call; string literals used as `StaticString` are instead null-terminated
/// constants for the whole program run. Each comment names the OpenSSL macro
/// with the same spelling.
enum ParameterName {
    /// `OSSL_ALG_PARAM_DIGEST` (`OSSL_MAC_PARAM_DIGEST`, `OSSL_KDF_PARAM_DIGEST`).
    static let digest: StaticString = "digest"
    /// `OSSL_KDF_PARAM_KEY`.
    static let key: StaticString = "key"
    /// `OSSL_KDF_PARAM_SALT`.
    static let salt: StaticString = "salt"
    /// `OSSL_KDF_PARAM_INFO`.
    static let info: StaticString = "info"
    /// `OSSL_PKEY_PARAM_GROUP_NAME`.
    static let group: StaticString = "group"
    /// `OSSL_PKEY_PARAM_PRIV_KEY`.
    static let privateKey: StaticString = "priv"
    /// `OSSL_PKEY_PARAM_PUB_KEY`.
    static let publicKey: StaticString = "pub"
    /// `OSSL_PKEY_PARAM_RSA_N`.
    static let rsaModulus: StaticString = "n"
    /// `OSSL_PKEY_PARAM_RSA_E`.
    static let rsaPublicExponent: StaticString = "e"
    /// `OSSL_PKEY_PARAM_RSA_D`.
    static let rsaPrivateExponent: StaticString = "d"
    /// `OSSL_PKEY_PARAM_RSA_FACTOR1` (p).
    static let rsaFactor1: StaticString = "rsa-factor1"
    /// `OSSL_PKEY_PARAM_RSA_FACTOR2` (q).
    static let rsaFactor2: StaticString = "rsa-factor2"
    /// `OSSL_PKEY_PARAM_RSA_FACTOR3`, present only in a multi-prime key.
    static let rsaFactor3: StaticString = "rsa-factor3"
    /// `OSSL_PKEY_PARAM_RSA_EXPONENT1` (d mod (p-1)).
    static let rsaExponent1: StaticString = "rsa-exponent1"
    /// `OSSL_PKEY_PARAM_RSA_EXPONENT2` (d mod (q-1)).
    static let rsaExponent2: StaticString = "rsa-exponent2"
    /// `OSSL_PKEY_PARAM_RSA_COEFFICIENT1` (q⁻¹ mod p).
    static let rsaCoefficient1: StaticString = "rsa-coefficient1"
    /// The SHA-256 digest name value.
    static let sha256: StaticString = "SHA256"
    /// The SHA-384 digest name value.
    static let sha384: StaticString = "SHA384"
    /// The SHA-512 digest name value.
    static let sha512: StaticString = "SHA512"
    /// The P-256 group name value (OpenSSL's canonical name for secp256r1).
    static let prime256v1: StaticString = "prime256v1"
    /// The P-384 group name value.
    static let secp384r1: StaticString = "secp384r1"
    /// The P-521 group name value.
    static let secp521r1: StaticString = "secp521r1"
    /// The secp256k1 group name value.
    static let secp256k1: StaticString = "secp256k1"
}

extension StaticString {
    /// The literal as a C string (string literals are always null-terminated).
    var cString: UnsafePointer<CChar> {
        precondition(hasPointerRepresentation, "C strings need a pointer-backed StaticString")
        return UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// The literal as the mutable `char *` some `OSSL_PARAM_construct_*` functions
    /// declare; OpenSSL only reads input parameters, so it is never written.
    var mutableCString: UnsafeMutablePointer<CChar> {
        UnsafeMutablePointer(mutating: cString)
    }
}
