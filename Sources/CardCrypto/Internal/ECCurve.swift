internal import COpenSSL

/// An ECDSA curve of the ES algorithms: its shared OpenSSL group, its order, and the hash its
/// algorithm signs with (which is also the HMAC of its RFC 6979 nonces).
struct ECCurve: Sendable {
    /// The curve.
    let ellipticCurve: EllipticCurve
    /// OpenSSL's canonical group name (the `EVP_PKEY` "group" parameter, as `EVP_PKEY_get_utf8_string_param` reports it).
    let groupName: StaticString
    /// The shared `EC_GROUP`.
    let group: FetchedAlgorithm
    /// The hash of the curve's ES algorithm.
    let digest: DigestAlgorithm
    /// The group order n, big-endian, `byteCount` bytes.
    let order: [UInt8]
    /// The bit length of n (qlen in RFC 6979): 256, 384 or 521.
    let orderBitCount: Int

    /// The length of a scalar and of one coordinate in bytes (for these curves both are ⌈bits/8⌉).
    var byteCount: Int { ellipticCurve.coordinateByteCount }

    /// The length of the uncompressed X9.62 point `04 || x || y`.
    var pointByteCount: Int { 1 + 2 * byteCount }

    /// The longest DER ECDSA signature: SEQUENCE of two INTEGERs below n, each with a leading
    /// zero byte when n's bit length is a multiple of 8 (72 bytes for P-256 and secp256k1, 104
    /// for P-384, 139 for P-521).
    var maximumSignatureByteCount: Int {
        let integer = 2 + byteCount + (orderBitCount % 8 == 0 ? 1 : 0)
        let body = 2 * integer
        return body + (body < 128 ? 2 : 3)
    }

    /// The algorithm this curve's keys sign with.
    var algorithm: SignatureAlgorithm {
        switch ellipticCurve {
        case .p256: .es256
        case .p384: .es384
        case .p521: .es512
        case .secp256k1: .es256k
        case .ed25519: preconditionFailure("Ed25519 is not an ECDSA curve")
        }
    }

    static let p256 = ECCurve(.p256, ParameterName.prime256v1, FetchedAlgorithms.p256Group, .sha256)
    static let p384 = ECCurve(.p384, ParameterName.secp384r1, FetchedAlgorithms.p384Group, .sha384)
    static let p521 = ECCurve(.p521, ParameterName.secp521r1, FetchedAlgorithms.p521Group, .sha512)
    static let secp256k1 = ECCurve(.secp256k1, ParameterName.secp256k1, FetchedAlgorithms.secp256k1Group, .sha256)

    /// The four curves, for looking one up by its OpenSSL group name.
    static let all = [p256, p384, p521, secp256k1]

    /// The curve whose OpenSSL group name is `name`, if it is one of the four.
    static func named(_ name: String) -> ECCurve? {
        all.first { String(describing: $0.groupName) == name }
    }

    private init(_ ellipticCurve: EllipticCurve, _ groupName: StaticString, _ group: FetchedAlgorithm, _ digest: DigestAlgorithm) {
        self.ellipticCurve = ellipticCurve
        self.groupName = groupName
        self.group = group
        self.digest = digest
        let count = ellipticCurve.coordinateByteCount
        (order, orderBitCount) = OpenSSL.mustSucceed {
            let order = try OpenSSL.nonNull(EC_GROUP_get0_order(group.pointer), "EC_GROUP_get0_order")
            return (try OpenSSL.bytes(of: order, count: count, function: "BN_bn2binpad"), Int(BN_num_bits(order)))
        }
    }

    /// The uncompressed public point `scalar`·G (`EC_POINT_mul`, constant-time for the secret scalar).
    func publicPoint(for scalar: OpaquePointer) throws -> [UInt8] {
        let point = try OpenSSLObject(EC_POINT_new(group.pointer), "EC_POINT_new", release: { EC_POINT_free($0) })
        defer { withExtendedLifetime(point) {} }
        try OpenSSL.check(EC_POINT_mul(group.pointer, point.pointer, scalar, nil, nil, nil), "EC_POINT_mul")
        var encoded = [UInt8](repeating: 0, count: pointByteCount)
        let written = EC_POINT_point2oct(
            group.pointer, point.pointer, POINT_CONVERSION_UNCOMPRESSED, &encoded, encoded.count, nil)
        guard written == encoded.count else { throw CryptoError.openSSL("EC_POINT_point2oct") }
        return encoded
    }

    /// A constant-time BIGNUM holding `scalar` if it is `byteCount` bytes and in [1, n); nil otherwise.
    func scalarNumber(_ scalar: [UInt8]) throws -> OpenSSLObject<OpaquePointer>? {
        guard scalar.count == byteCount else { return nil }
        // Compare as bytes, without a BIGNUM: equal-length big-endian strings order like their numbers.
        guard scalar.contains(where: { $0 != 0 }), scalar.lexicographicallyPrecedes(order) else { return nil }
        let number = try OpenSSLObject(
            BN_bin2bn(scalar, Int32(scalar.count), nil), "BN_bin2bn", release: { BN_clear_free($0) })
        BN_set_flags(number.pointer, BN_FLG_CONSTTIME)
        return number
    }
}
