internal import COpenSSL

/// Owns one `EVP_PKEY`: a public key or a full key pair of any type CardCrypto uses.
///
/// `@unchecked Sendable` is sound because the key is never modified after
/// creation: every operation runs on its own fresh `EVP_PKEY_CTX`, and OpenSSL
/// documents an unmodified `EVP_PKEY` as safe to use from several threads at
/// once (its reference count is atomic). The pointer is freed only in `deinit`.
final class EVPPKey: OpenSSLObject<OpaquePointer>, @unchecked Sendable {
    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        super.init(taking: pointer, release: { EVP_PKEY_free($0) })
    }

    /// Imports a P-256 key with `EVP_PKEY_fromdata`.
    ///
    /// - Parameters:
    ///   - privateScalar: A BIGNUM holding the private scalar, or nil for a public key.
    ///   - publicPoint: The uncompressed X9.62 public point (65 bytes).
    static func importP256(privateScalar: OpaquePointer?, publicPoint: [UInt8]) throws -> EVPPKey {
        try importEC(groupName: ParameterName.prime256v1, privateScalar: privateScalar, publicPoint: publicPoint)
    }

    /// Imports an EC key on the named group `groupName` with `EVP_PKEY_fromdata`; OpenSSL rejects
    /// a point that is not on the curve.
    ///
    /// - Parameters:
    ///   - privateScalar: A BIGNUM holding the private scalar, or nil for a public key.
    ///   - publicPoint: The uncompressed X9.62 public point.
    static func importEC(groupName: StaticString, privateScalar: OpaquePointer?, publicPoint: [UInt8]) throws -> EVPPKey {
        // The builder stores the caller's pointers until OSSL_PARAM_BLD_to_param
        // copies them, so everything it refers to stays alive in this scope.
        let builder = try OpenSSLObject(OSSL_PARAM_BLD_new(), "OSSL_PARAM_BLD_new", release: { OSSL_PARAM_BLD_free($0) })
        defer { withExtendedLifetime(builder) {} }
        try OpenSSL.check(
            OSSL_PARAM_BLD_push_utf8_string(builder.pointer, ParameterName.group.cString, groupName.cString, 0),
            "OSSL_PARAM_BLD_push_utf8_string")
        if let privateScalar {
            try OpenSSL.check(
                OSSL_PARAM_BLD_push_BN(builder.pointer, ParameterName.privateKey.cString, privateScalar),
                "OSSL_PARAM_BLD_push_BN")
        }
        let params = try publicPoint.withUnsafeBytes { point in
            try OpenSSL.check(
                OSSL_PARAM_BLD_push_octet_string(
                    builder.pointer, ParameterName.publicKey.cString, point.baseAddress, point.count),
                "OSSL_PARAM_BLD_push_octet_string")
            return try OpenSSLObject(
                OSSL_PARAM_BLD_to_param(builder.pointer), "OSSL_PARAM_BLD_to_param", release: { OSSL_PARAM_free($0) })
        }
        defer { withExtendedLifetime(params) {} }
        let selection = privateScalar == nil ? copenssl_EVP_PKEY_PUBLIC_KEY : copenssl_EVP_PKEY_KEYPAIR
        return try fromData(keyType: "EC", selection: selection, params: params.pointer)
    }

    /// `EVP_PKEY_fromdata` for a key of `keyType` ("EC", "RSA") from a finished parameter array.
    static func fromData(keyType: String, selection: Int32, params: UnsafeMutablePointer<OSSL_PARAM>) throws -> EVPPKey {
        let context = try OpenSSLObject(
            EVP_PKEY_CTX_new_from_name(nil, keyType, nil), "EVP_PKEY_CTX_new_from_name", release: { EVP_PKEY_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_PKEY_fromdata_init(context.pointer), "EVP_PKEY_fromdata_init")
        var key: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_fromdata(context.pointer, &key, selection, params), "EVP_PKEY_fromdata")
        return EVPPKey(taking: try OpenSSL.nonNull(key, "EVP_PKEY_fromdata"))
    }

    /// A fresh operation context for this key (`EVP_PKEY_CTX_new_from_pkey`).
    func makeContext() throws -> OpenSSLObject<OpaquePointer> {
        try OpenSSLObject(
            EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil), "EVP_PKEY_CTX_new_from_pkey",
            release: { EVP_PKEY_CTX_free($0) })
    }

    /// True when this is an EC key on the named curve P-256.
    var isP256: Bool {
        groupName == "prime256v1"
    }

    /// The named group of an EC key (OpenSSL's canonical name, e.g. "secp384r1"); nil for
    /// other key types and for EC keys with explicit curve parameters.
    var groupName: String? {
        guard EVP_PKEY_is_a(pointer, "EC") == 1 else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A BIGNUM-valued key parameter (e.g. `OSSL_PKEY_PARAM_PRIV_KEY`) as `count` big-endian bytes.
    func bigNumberParameter(_ name: String, count: Int) throws -> [UInt8] {
        var value: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_get_bn_param(pointer, name, &value), "EVP_PKEY_get_bn_param(\(name))")
        let number = try OpenSSLObject(value, "EVP_PKEY_get_bn_param(\(name))", release: { BN_clear_free($0) })
        defer { withExtendedLifetime(number) {} }
        return try OpenSSL.bytes(of: number.pointer, count: count, function: "EVP_PKEY_get_bn_param(\(name))")
    }

    /// The public point as (x, y), each `count` big-endian bytes (32 for P-256).
    func publicCoordinates(count: Int = P256PublicKey.coordinateByteCount) throws -> (x: [UInt8], y: [UInt8]) {
        (
            try bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_X, count: count),
            try bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_Y, count: count)
        )
    }
}
