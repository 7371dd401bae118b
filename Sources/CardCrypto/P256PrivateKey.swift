internal import COpenSSL

/// A P-256 (secp256r1 / prime256v1) private key.
///
/// The OpenSSL key object (private scalar plus public point) is built once, at
/// initialization, and reused by every signature and key agreement.
///
/// `@unchecked Sendable` is sound because every stored property is a `let` set
/// in `init`: the scalar and public key are immutable values, and the OpenSSL
/// key is never modified afterwards (each operation uses its own context; see
/// `EVPPKey`).
public final class P256PrivateKey: @unchecked Sendable {
    /// The size of the private scalar in bytes (32).
    public static let scalarByteCount = 32
    /// The largest DER ECDSA P-256 signature: SEQUENCE of two 33-byte INTEGERs (72 bytes).
    public static let maximumSignatureByteCount = 72

    /// The imported OpenSSL key pair.
    let key: EVPPKey
    /// The private scalar as 32 big-endian bytes, left-padded with zeros.
    public let rawScalar: [UInt8]
    /// The matching public key (computed once, at initialization).
    public let publicKey: P256PublicKey

    private init(key: EVPPKey, rawScalar: [UInt8], publicKey: P256PublicKey) {
        self.key = key
        self.rawScalar = rawScalar
        self.publicKey = publicKey
    }

    /// Generates a fresh random key pair (`EVP_PKEY_generate` on group P-256).
    public convenience init() throws {
        let context = try OpenSSLObject(
            EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name", release: { EVP_PKEY_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_PKEY_keygen_init(context.pointer), "EVP_PKEY_keygen_init")
        try OpenSSL.check(EVP_PKEY_CTX_set_group_name(context.pointer, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var generated: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_generate(context.pointer, &generated), "EVP_PKEY_generate")
        let key = EVPPKey(taking: try OpenSSL.nonNull(generated, "EVP_PKEY_generate"))
        let scalar = try key.bigNumberParameter(OSSL_PKEY_PARAM_PRIV_KEY, count: Self.scalarByteCount)
        let (x, y) = try key.publicCoordinates()
        self.init(key: key, rawScalar: scalar, publicKey: try P256PublicKey(x: x, y: y))
    }

    /// The order n of the P-256 group, big-endian (SEC 2 §2.4.2).
    static let groupOrder: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Whether `rawScalar` is a private key ``init(rawScalar:)`` accepts (32 bytes, in 1..<n),
    /// without the point multiplication an import costs; in constant time, since the bytes are a
    /// secret (every byte is read whatever the earlier ones were).
    public static func isValidScalar(_ rawScalar: [UInt8]) -> Bool {
        guard rawScalar.count == scalarByteCount else { return false }
        var borrow: Int = 0
        var any: UInt8 = 0
        for index in stride(from: scalarByteCount - 1, through: 0, by: -1) {
            let difference = Int(rawScalar[index]) - Int(groupOrder[index]) - borrow
            borrow = (difference >> 8) & 1
            any |= rawScalar[index]
        }
        // borrow 1: rawScalar < n.
        return borrow == 1 && any != 0
    }

    /// Imports a 32-byte big-endian scalar; throws if it has the wrong length, is 0, or is >= the group order n.
    public convenience init(rawScalar: [UInt8]) throws {
        guard rawScalar.count == Self.scalarByteCount else {
            throw CryptoError.invalidInput("P256PrivateKey", "scalar must be 32 bytes, got \(rawScalar.count)")
        }
        let scalar = try OpenSSLObject(
            BN_bin2bn(rawScalar, Int32(rawScalar.count), nil), "BN_bin2bn", release: { BN_clear_free($0) })
        defer { withExtendedLifetime(scalar) {} }
        BN_set_flags(scalar.pointer, BN_FLG_CONSTTIME)

        let group = FetchedAlgorithms.p256Group
        let order = try OpenSSL.nonNull(EC_GROUP_get0_order(group.pointer), "EC_GROUP_get0_order")
        guard BN_is_zero(scalar.pointer) == 0, BN_cmp(scalar.pointer, order) < 0 else {
            throw CryptoError.invalidInput("P256PrivateKey", "scalar must be in 1..<n")
        }

        // Public point = scalar * G (EC_POINT_mul uses a constant-time ladder for the secret scalar).
        let point = try OpenSSLObject(EC_POINT_new(group.pointer), "EC_POINT_new", release: { EC_POINT_free($0) })
        defer { withExtendedLifetime(point) {} }
        try OpenSSL.check(EC_POINT_mul(group.pointer, point.pointer, scalar.pointer, nil, nil, nil), "EC_POINT_mul")
        var encoded = [UInt8](repeating: 0, count: P256PublicKey.x962ByteCount)
        let written = EC_POINT_point2oct(
            group.pointer, point.pointer, POINT_CONVERSION_UNCOMPRESSED, &encoded, encoded.count, nil)
        guard written == encoded.count else { throw CryptoError.openSSL("EC_POINT_point2oct") }

        let publicKey = try P256PublicKey(x962: encoded)
        let key = try EVPPKey.importP256(privateScalar: scalar.pointer, publicPoint: encoded)
        self.init(key: key, rawScalar: rawScalar, publicKey: publicKey)
    }

    /// Imports a PEM private key: PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`
    /// (unencrypted only); throws unless it is a valid P-256 key.
    public convenience init(pemPKCS8 pem: String) throws {
        let pemBytes = Array(pem.utf8)
        let decoded: EVPPKey = try pemBytes.withUnsafeBytes { storage in
            let bio = try OpenSSL.makeReadOnlyBIO(over: storage, function: "PEM_read_bio_PrivateKey")
            defer { withExtendedLifetime(bio) {} }
            // A password callback that always fails: encrypted keys are rejected
            // instead of OpenSSL prompting on the terminal.
            let key = PEM_read_bio_PrivateKey(bio.pointer, nil, { _, _, _, _ in 0 }, nil)
            return EVPPKey(taking: try OpenSSL.nonNull(key, "PEM_read_bio_PrivateKey"))
        }
        guard decoded.isP256 else {
            throw CryptoError.invalidInput("P256PrivateKey", "PEM key is not an EC key on P-256")
        }
        let scalar = try decoded.bigNumberParameter(OSSL_PKEY_PARAM_PRIV_KEY, count: Self.scalarByteCount)
        try self.init(rawScalar: scalar)
    }

    /// The key as an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public var pemPKCS8: String {
        OpenSSL.mustSucceed {
            let bio = try OpenSSL.makeMemoryBIO()
            defer { withExtendedLifetime(bio) {} }
            try OpenSSL.check(
                PEM_write_bio_PKCS8PrivateKey(bio.pointer, key.pointer, nil, nil, 0, nil, nil),
                "PEM_write_bio_PKCS8PrivateKey")
            return OpenSSL.contents(ofMemoryBIO: bio.pointer)
        }
    }

    /// ECDSA with SHA-256 over `message`; DER-encoded signature (X9.62 Ecdsa-Sig-Value).
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        try signature(forDigest: SHA256.hash(message))
    }

    /// ECDSA over a precomputed 32-byte SHA-256 digest; DER signature.
    public func signature(forDigest digest: [UInt8]) throws -> [UInt8] {
        guard digest.count == SHA256.byteCount else {
            throw CryptoError.invalidInput("P256PrivateKey.signature", "digest must be 32 bytes, got \(digest.count)")
        }
        let context = try key.makeContext()
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_PKEY_sign_init(context.pointer), "EVP_PKEY_sign_init")
        var signature = [UInt8](repeating: 0, count: Self.maximumSignatureByteCount)
        var length = signature.count
        try OpenSSL.check(
            EVP_PKEY_sign(context.pointer, &signature, &length, digest, digest.count), "EVP_PKEY_sign")
        signature.removeLast(signature.count - length)
        return signature
    }

    /// ECDH: the 32-byte x-coordinate of scalar * peer.
    public func sharedSecret(with peer: P256PublicKey) throws -> [UInt8] {
        let context = try key.makeContext()
        defer { withExtendedLifetime(context) {} }
        try OpenSSL.check(EVP_PKEY_derive_init(context.pointer), "EVP_PKEY_derive_init")
        // The peer was validated when it was constructed, so skip re-validation (0).
        try OpenSSL.check(
            EVP_PKEY_derive_set_peer_ex(context.pointer, peer.key.pointer, 0), "EVP_PKEY_derive_set_peer_ex")
        var secret = [UInt8](repeating: 0, count: P256PublicKey.coordinateByteCount)
        var length = secret.count
        try OpenSSL.check(EVP_PKEY_derive(context.pointer, &secret, &length), "EVP_PKEY_derive")
        guard length == secret.count else {
            throw CryptoError.invalidInput("EVP_PKEY_derive", "unexpected shared secret length \(length)")
        }
        return secret
    }
}
