internal import COpenSSL

/// The private key of a credential of any `SignatureAlgorithm`: what the authenticator generates
/// when a relying party asks for that algorithm, stores (as `privateKeyBytes`, in the card image
/// and inside wrapped credential IDs), and signs authenticator data with.
///
/// The OpenSSL key is built once, at initialization, and reused by every signature (each
/// signature runs on its own context, so one key may sign from several threads at once). ES256
/// keys wrap a `P256PrivateKey`, so they sign exactly as fast and store exactly the same bytes.
///
/// Errors: CardCrypto's own checks throw `CryptoError` with function "CredentialPrivateKey" and
/// one of the reasons listed on each initializer (openSSLCode 0); a failing OpenSSL call throws
/// with the C function's name and OpenSSL's error code.
public final class CredentialPrivateKey: Sendable {
    /// The algorithm this key signs with.
    public let algorithm: SignatureAlgorithm
    /// The compact private key the card stores, one fixed encoding per key type:
    /// - ES256, ES384, ES512, ES256K: the private scalar, big-endian, left-padded to the order's
    ///   length (32, 48, 66, 32 bytes) — for ES256 the same bytes as `P256PrivateKey.rawScalar`;
    /// - EdDSA: the 32-byte Ed25519 seed (RFC 8032 "private key");
    /// - RS256, PS256: the DER PKCS #1 RSAPrivateKey (RFC 8017 A.1.2, version 0, two primes),
    ///   about 1,190 bytes for 2048 bits. It is the key with no algorithm identifier around it
    ///   (which PKCS #8 would add, and which would still say rsaEncryption for a PS256 key); the
    ///   stored algorithm says RS256 or PS256.
    public let privateKeyBytes: [UInt8]
    /// The matching public key (computed once, at initialization).
    public let publicKey: CredentialPublicKey
    private let backing: Backing

    private enum Backing: Sendable {
        case p256(P256PrivateKey)
        case ec(EVPPKey, ECCurve)
        case ed25519(EVPPKey)
        case rsa(EVPPKey, modulusBitCount: Int)
    }

    private static let function = "CredentialPrivateKey"
    /// Scalars drawn before giving up on the random stream (a stuck stream must not hang the card).
    static let maximumScalarDraws = 1000

    private init(algorithm: SignatureAlgorithm, privateKeyBytes: [UInt8], publicKey: CredentialPublicKey, backing: Backing) {
        self.algorithm = algorithm
        self.privateKeyBytes = privateKeyBytes
        self.publicKey = publicKey
        self.backing = backing
    }

    /// An ES256 key wrapping `key` (no copy, no re-import).
    public convenience init(_ key: P256PrivateKey) {
        self.init(algorithm: .es256, privateKeyBytes: key.rawScalar, publicKey: CredentialPublicKey(key.publicKey),
                  backing: .p256(key))
    }

    /// The wrapped P-256 key of an ES256 key (for APIs that take one, such as certificates); nil otherwise.
    public var p256PrivateKey: P256PrivateKey? {
        if case .p256(let key) = backing { return key }
        return nil
    }

    // MARK: - Generation

    /// Generates a key of `algorithm` from `randomBytes(n)`, which must return n bytes: the card's
    /// own entropy stream, which a seeded (deterministic) card replays, so the same stream gives
    /// the same key.
    ///
    /// - EC: a scalar of the order's length in bytes (P-521: 66 bytes with the top 7 bits
    ///   cleared), drawn again while it is 0 or ≥ n — for ES256 exactly the draws of 32 bytes the
    ///   card has always made;
    /// - EdDSA: the 32-byte seed;
    /// - RS256, PS256: a 2048-bit key, e = 65537, whose primes are found in the stream (p, then q:
    ///   128 bytes per candidate, top two bits and low bit set, gcd(e, candidate − 1) = 1, prime by
    ///   OpenSSL's `BN_check_prime`, q ≠ p), not by OpenSSL's keygen, which draws from its own
    ///   DRBG. That costs tens to hundreds of milliseconds and about 45 KB of stream per prime.
    ///
    /// Throws with function "CredentialPrivateKey" and reason "random stream returned <m> bytes,
    /// asked for <n>", "random stream gave no <alg> scalar in 1..<n in 1000 draws" or "random
    /// stream gave no 1024-bit prime in 20000 candidates".
    public convenience init(algorithm: SignatureAlgorithm, randomBytes: (Int) -> [UInt8]) throws {
        let function = Self.function
        let bytes: [UInt8]
        switch algorithm {
        case .es256, .es384, .es512, .es256k:
            bytes = try Self.drawScalar(curve: algorithm.ecCurve!, randomBytes: randomBytes)
        case .edDSA:
            bytes = try RandomStream.draw(32, from: randomBytes, function: function)
        case .rs256, .ps256:
            bytes = try RSAPrivateComponents.generate(randomBytes: randomBytes, function: function).der
        }
        try self.init(algorithm: algorithm, privateKeyBytes: bytes)
    }

    private static func drawScalar(curve: ECCurve, randomBytes: (Int) -> [UInt8]) throws -> [UInt8] {
        let excessBits = curve.byteCount * 8 - curve.orderBitCount
        for _ in 0..<maximumScalarDraws {
            var bytes = try RandomStream.draw(curve.byteCount, from: randomBytes, function: function)
            bytes[0] &= UInt8(0xFF >> excessBits)
            if try curve.scalarNumber(bytes) != nil { return bytes }
        }
        throw CryptoError.invalidInput(
            function, "random stream gave no \(curve.algorithm.name) scalar in 1..<n in \(maximumScalarDraws) draws")
    }

    // MARK: - Stored form

    /// Imports `privateKeyBytes` (the encoding documented there) as a key of `algorithm`.
    ///
    /// Throws with function "CredentialPrivateKey" and reason:
    /// - EC: "<alg> private key must be <L> bytes, got <n>"; "<alg> private scalar must be in 1..<n";
    /// - EdDSA: "EdDSA private key must be 32 bytes, got <n>";
    /// - RSA: "<alg> private key is not a two-prime DER RSAPrivateKey" (anything but strict DER
    ///   of version 0, trailing bytes included); "<alg> modulus must be 2048 to 4096 bits, got
    ///   <n>"; "<alg> public exponent must be odd, at least 3 and below n"; "<alg> private key
    ///   components are inconsistent" (n ≠ p·q, or d, dp, dq, qInverse not matching; primality
    ///   is not tested).
    public convenience init(algorithm: SignatureAlgorithm, privateKeyBytes bytes: [UInt8]) throws {
        let function = Self.function
        let name = algorithm.name
        switch algorithm {
        case .es256, .es384, .es512, .es256k:
            let curve = algorithm.ecCurve!
            guard bytes.count == curve.byteCount else {
                throw CryptoError.invalidInput(function, "\(name) private key must be \(curve.byteCount) bytes, got \(bytes.count)")
            }
            guard let scalar = try curve.scalarNumber(bytes) else {
                throw CryptoError.invalidInput(function, "\(name) private scalar must be in 1..<n")
            }
            defer { withExtendedLifetime(scalar) {} }
            if algorithm == .es256 {
                self.init(try P256PrivateKey(rawScalar: bytes))
                return
            }
            let point = try curve.publicPoint(for: scalar.pointer)
            let key = try EVPPKey.importEC(groupName: curve.groupName, privateScalar: scalar.pointer, publicPoint: point)
            let publicKey = try EVPPKey.importEC(groupName: curve.groupName, privateScalar: nil, publicPoint: point)
            let x = Array(point[1...curve.byteCount])
            let y = Array(point[(1 + curve.byteCount)...])
            self.init(algorithm: algorithm, privateKeyBytes: bytes,
                      publicKey: CredentialPublicKey(algorithm: algorithm, coseKey: .ec2(curve: curve.ellipticCurve, x: x, y: y), key: publicKey),
                      backing: .ec(key, curve))
        case .edDSA:
            guard bytes.count == 32 else {
                throw CryptoError.invalidInput(function, "EdDSA private key must be 32 bytes, got \(bytes.count)")
            }
            let key = EVPPKey(taking: try OpenSSL.nonNull(
                EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, bytes, bytes.count), "EVP_PKEY_new_raw_private_key_ex"))
            let x = try key.rawPublicKey()
            let publicKey = EVPPKey(taking: try OpenSSL.nonNull(
                EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, x, x.count), "EVP_PKEY_new_raw_public_key_ex"))
            self.init(algorithm: algorithm, privateKeyBytes: bytes,
                      publicKey: CredentialPublicKey(algorithm: algorithm, coseKey: .okp(curve: .ed25519, x: x), key: publicKey),
                      backing: .ed25519(key))
        case .rs256, .ps256:
            guard let components = RSAPrivateComponents(der: bytes) else {
                throw CryptoError.invalidInput(function, "\(name) private key is not a two-prime DER RSAPrivateKey")
            }
            try CredentialPublicKey.validateRSA(modulus: components.n, exponent: components.e, function: function, prefix: name)
            try components.validate(function: function, name: name)
            let key = try components.makeKey()
            let publicKey = try RSAPrivateComponents.makePublicKey(n: components.n, e: components.e)
            self.init(algorithm: algorithm, privateKeyBytes: bytes,
                      publicKey: CredentialPublicKey(algorithm: algorithm, coseKey: .rsa(n: components.n, e: components.e),
                                                     key: publicKey),
                      backing: .rsa(key, modulusBitCount: components.modulusBitCount))
        }
    }

    // MARK: - PKCS #8

    /// Imports an unencrypted DER PKCS #8 PrivateKeyInfo (RFC 5208/5958), such as the base64url
    /// `privateKey` of a WebDriver virtual-authenticator credential.
    ///
    /// The algorithm follows from the key — its EC curve, Ed25519, RS256 for an rsaEncryption key,
    /// PS256 for an id-RSASSA-PSS one (whose parameter restrictions, if any, are not kept) — unless
    /// `algorithm` names it (needed for PS256 with an rsaEncryption key). The key is re-encoded
    /// into `privateKeyBytes` and imported from those, with all of that initializer's checks; an
    /// EC key's embedded public key must match its scalar.
    ///
    /// Throws `CryptoError` with function "d2i_PKCS8_PRIV_KEY_INFO" (reason "empty input",
    /// "trailing bytes after PrivateKeyInfo", or OpenSSL's decoding error), "EVP_PKCS82PKEY", or
    /// "CredentialPrivateKey": "unsupported key type <name>", "unsupported EC curve <name>", "EC
    /// key without a named curve", "<kind> key cannot be used for <alg>" (kind "EC P-384",
    /// "Ed25519", "RSA", "RSA-PSS"), "RSA key is not a two-prime private key", "embedded public
    /// key does not match the private key", and those of `init(algorithm:privateKeyBytes:)`.
    public convenience init(pkcs8DER der: [UInt8], algorithm requested: SignatureAlgorithm? = nil) throws {
        let function = Self.function
        let decoded = try EVPPKey.parsePKCS8(der)
        let kind = try decoded.kind(function: function)
        let algorithm = try kind.algorithm(requested: requested, function: function)
        var embeddedPoint: (x: [UInt8], y: [UInt8])? = nil
        let bytes: [UInt8]
        switch kind {
        case .ec(let curve):
            bytes = try decoded.bigNumberParameter(OSSL_PKEY_PARAM_PRIV_KEY, count: curve.byteCount)
            // OpenSSL computes the point when the ECPrivateKey carries none.
            embeddedPoint = try decoded.publicCoordinates(count: curve.byteCount)
        case .ed25519:
            bytes = try decoded.rawPrivateKey()
        case .rsa, .rsaPSS:
            guard let components = try RSAPrivateComponents(key: decoded) else {
                throw CryptoError.invalidInput(function, "RSA key is not a two-prime private key")
            }
            bytes = components.der
        }
        try self.init(algorithm: algorithm, privateKeyBytes: bytes)
        if let embeddedPoint {
            guard case .ec2(_, let x, let y) = publicKey.coseKey, x == embeddedPoint.x, y == embeddedPoint.y else {
                throw CryptoError.invalidInput(function, "embedded public key does not match the private key")
            }
        }
    }

    /// Imports a PEM `PRIVATE KEY` (unencrypted PKCS #8); as `init(pkcs8DER:algorithm:)`, plus
    /// function "PEM_read_bio" errors for text that is not one such block (an `ENCRYPTED PRIVATE
    /// KEY` or a traditional `EC PRIVATE KEY` / `RSA PRIVATE KEY` block included).
    public convenience init(pemPKCS8 pem: String, algorithm: SignatureAlgorithm? = nil) throws {
        try self.init(pkcs8DER: try OpenSSL.der(fromPEM: pem, label: "PRIVATE KEY"), algorithm: algorithm)
    }

    /// The key as an unencrypted DER PKCS #8 PrivateKeyInfo: id-ecPublicKey with the named curve,
    /// id-Ed25519 (RFC 8410), or rsaEncryption (for PS256 too, as WebCrypto writes it).
    public var pkcs8DER: [UInt8] {
        OpenSSL.mustSucceed {
            switch backing {
            case .p256(let key): try key.key.pkcs8DER()
            case .ec(let key, _), .ed25519(let key), .rsa(let key, _): try key.pkcs8DER()
            }
        }
    }

    /// `pkcs8DER` as PEM (`-----BEGIN PRIVATE KEY-----`).
    public var pemPKCS8: String {
        OpenSSL.mustSucceed { try OpenSSL.pem(label: "PRIVATE KEY", der: pkcs8DER) }
    }

    // MARK: - Signing

    /// The signature over `message` that WebAuthn expects in an attestation or assertion: DER
    /// ECDSA (X9.62 Ecdsa-Sig-Value) for the ES algorithms, the 64-byte Ed25519 signature for
    /// EdDSA, the modulus-length signature block for RS256 and PS256. ECDSA nonces and the PSS
    /// salt come from OpenSSL's DRBG; `deterministicSignature(for:randomBytes:)` is the
    /// replayable variant.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        switch backing {
        case .p256(let key):
            return try key.signature(for: message)
        case .ec(let key, let curve):
            let digest = curve.digest.hash(message)
            let context = try key.makeContext()
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.check(EVP_PKEY_sign_init(context.pointer), "EVP_PKEY_sign_init")
            var signature = [UInt8](repeating: 0, count: curve.maximumSignatureByteCount)
            var length = signature.count
            try OpenSSL.check(EVP_PKEY_sign(context.pointer, &signature, &length, digest, digest.count), "EVP_PKEY_sign")
            signature.removeLast(signature.count - length)
            return signature
        case .ed25519(let key):
            let context = try OpenSSLObject(EVP_MD_CTX_new(), "EVP_MD_CTX_new", release: { EVP_MD_CTX_free($0) })
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.check(EVP_DigestSignInit_ex(context.pointer, nil, nil, nil, nil, key.pointer, nil),
                              "EVP_DigestSignInit_ex")
            var signature = [UInt8](repeating: 0, count: 64)
            var length = signature.count
            try OpenSSL.withBytes(message) { bytes, count in
                try OpenSSL.check(EVP_DigestSign(context.pointer, &signature, &length, bytes, count), "EVP_DigestSign")
            }
            guard length == 64 else { throw CryptoError.invalidInput("EVP_DigestSign", "unexpected signature length \(length)") }
            return signature
        case .rsa(let key, let modulusBitCount):
            let digest = SHA256.hash(message)
            let context = try key.makeContext()
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.check(EVP_PKEY_sign_init(context.pointer), "EVP_PKEY_sign_init")
            try RSAPadding.configure(context.pointer, pss: algorithm == .ps256)
            return try Self.sign(context.pointer, input: digest, modulusBitCount: modulusBitCount)
        }
    }

    /// Like `signature(for:)`, but replayable: the same key, message and random stream give the
    /// same signature, which is what a seeded (deterministic) card needs.
    ///
    /// - ES algorithms: the RFC 6979 §3.2 nonce, with HMAC over the algorithm's own hash
    ///   (SHA-256 for ES256 and ES256K, SHA-384 for ES384, SHA-512 for ES512);
    /// - EdDSA and RS256: deterministic by definition, the same as `signature(for:)`;
    /// - PS256: the 32-byte salt is `randomBytes(32)`, and the PSS encoding is computed by
    ///   CardCrypto (RFC 8017 §9.1.1) before OpenSSL's raw RSA private-key operation.
    ///
    /// `randomBytes` is called only for PS256; throws "random stream returned <m> bytes, asked
    /// for 32" if it misbehaves.
    public func deterministicSignature(for message: [UInt8], randomBytes: (Int) -> [UInt8]) throws -> [UInt8] {
        switch backing {
        case .p256(let key):
            return try key.deterministicSignature(for: message)
        case .ec(_, let curve):
            return try DeterministicECDSA.signature(digest: curve.digest.hash(message), scalar: privateKeyBytes, curve: curve)
        case .ed25519:
            return try signature(for: message)
        case .rsa(let key, let modulusBitCount):
            guard algorithm == .ps256 else { return try signature(for: message) }
            let salt = try RandomStream.draw(SHA256.byteCount, from: randomBytes, function: Self.function)
            let encoded = try PSSEncoding.encode(messageHash: SHA256.hash(message), salt: salt, modulusBitCount: modulusBitCount)
            let context = try key.makeContext()
            defer { withExtendedLifetime(context) {} }
            try OpenSSL.check(EVP_PKEY_sign_init(context.pointer), "EVP_PKEY_sign_init")
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(context.pointer, RSA_NO_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
            return try Self.sign(context.pointer, input: encoded, modulusBitCount: modulusBitCount)
        }
    }

    /// `EVP_PKEY_sign` into a modulus-length buffer.
    private static func sign(_ context: OpaquePointer, input: [UInt8], modulusBitCount: Int) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: (modulusBitCount + 7) / 8)
        var length = signature.count
        try OpenSSL.check(EVP_PKEY_sign(context, &signature, &length, input, input.count), "EVP_PKEY_sign")
        guard length == signature.count else {
            throw CryptoError.invalidInput("EVP_PKEY_sign", "unexpected signature length \(length)")
        }
        return signature
    }
}
