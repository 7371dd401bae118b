internal import COpenSSL

/// The public key of a credential of any `SignatureAlgorithm`, for verifying its attestation and
/// assertion signatures (the host side: a CTAP client, a relying party, tests) and for encoding
/// it as a COSE_Key or a SubjectPublicKeyInfo.
///
/// Built from the COSE_Key parameters the authenticator returned, or from DER/PEM. Every
/// constructor validates the key (EC points on their curve, lengths, RSA sizes); the OpenSSL key
/// object is built once and reused by every verification. Equality and hashing compare the
/// algorithm and the COSE parameters.
public struct CredentialPublicKey: Sendable, Hashable {
    /// The algorithm this key verifies.
    public let algorithm: SignatureAlgorithm
    /// The COSE_Key parameters, canonical: EC2 coordinates at full length, RSA `n` and `e`
    /// without leading zeros.
    public let coseKey: COSEKeyParameters
    /// The imported OpenSSL key.
    let key: EVPPKey

    /// Trusted construction from parts already known to agree (keys derived from a private key).
    init(algorithm: SignatureAlgorithm, coseKey: COSEKeyParameters, key: EVPPKey) {
        self.algorithm = algorithm
        self.coseKey = coseKey
        self.key = key
    }

    /// An ES256 key from a `P256PublicKey`, sharing its OpenSSL key.
    public init(_ p256: P256PublicKey) {
        self.init(algorithm: .es256, coseKey: .ec2(curve: .p256, x: p256.x, y: p256.y), key: p256.key)
    }

    /// Creates a key from COSE_Key parameters for `algorithm`.
    ///
    /// Throws `CryptoError` with function "CredentialPublicKey" and reason:
    /// - "<alg> needs an EC2 key on <curve>" / "EdDSA needs an OKP key on Ed25519" /
    ///   "<alg> needs an RSA key" when the parameters are of another key type or curve;
    /// - "<curve> coordinates must be <L> bytes each, got <a> and <b>";
    /// - "Ed25519 public key must be 32 bytes, got <n>";
    /// - "RSA modulus must be 2048 to 4096 bits, got <n>";
    /// - "RSA public exponent must be odd, at least 3 and below n".
    ///
    /// A point that is not on the curve (or has a coordinate ≥ p) fails in OpenSSL, with function
    /// "EVP_PKEY_fromdata" or "EVP_PKEY_public_check_quick". RSA `n` and `e` may carry leading
    /// zero bytes; they are dropped. An Ed25519 key is not decoded until it verifies (OpenSSL has
    /// no check for it): a bad point just never verifies.
    public init(algorithm: SignatureAlgorithm, coseKey: COSEKeyParameters) throws {
        let function = "CredentialPublicKey"
        switch (algorithm.keyType, coseKey) {
        case (.ec2, .ec2(let curve, let x, let y)) where curve == algorithm.curve:
            let ecCurve = algorithm.ecCurve!
            guard x.count == ecCurve.byteCount, y.count == ecCurve.byteCount else {
                throw CryptoError.invalidInput(
                    function, "\(curve) coordinates must be \(ecCurve.byteCount) bytes each, got \(x.count) and \(y.count)")
            }
            let key = try EVPPKey.importEC(groupName: ecCurve.groupName, privateScalar: nil, publicPoint: [0x04] + x + y)
            // As in P256PublicKey: check explicitly so validation never depends on importer details.
            let context = try key.makeContext()
            defer { withExtendedLifetime(context) {} }
            guard EVP_PKEY_public_check_quick(context.pointer) == 1 else {
                throw CryptoError.openSSL("EVP_PKEY_public_check_quick")
            }
            self.init(algorithm: algorithm, coseKey: coseKey, key: key)
        case (.okp, .okp(let curve, let x)) where curve == algorithm.curve:
            guard x.count == 32 else {
                throw CryptoError.invalidInput(function, "Ed25519 public key must be 32 bytes, got \(x.count)")
            }
            let key = try OpenSSL.nonNull(
                EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, x, x.count), "EVP_PKEY_new_raw_public_key_ex")
            self.init(algorithm: algorithm, coseKey: coseKey, key: EVPPKey(taking: key))
        case (.rsa, .rsa(let n, let e)):
            let modulus = Array(n.drop { $0 == 0 })
            let exponent = Array(e.drop { $0 == 0 })
            try Self.validateRSA(modulus: modulus, exponent: exponent, function: function, prefix: "RSA")
            let key = try RSAPrivateComponents.makePublicKey(n: modulus, e: exponent)
            self.init(algorithm: algorithm, coseKey: .rsa(n: modulus, e: exponent), key: key)
        default:
            let needed = switch algorithm.keyType {
            case .ec2: "an EC2 key on \(algorithm.curve!)"
            case .okp: "an OKP key on \(algorithm.curve!)"
            case .rsa: "an RSA key"
            }
            throw CryptoError.invalidInput(function, "\(algorithm.name) needs \(needed)")
        }
    }

    /// Creates a key from a DER SubjectPublicKeyInfo (RFC 5480 EC, RFC 8410 Ed25519, RFC 8017
    /// rsaEncryption or RSASSA-PSS).
    ///
    /// The algorithm follows from the key (its curve; RS256 for an rsaEncryption key, PS256 for
    /// an RSASSA-PSS one) unless `algorithm` names it — needed for a PS256 key exported by
    /// `derSubjectPublicKeyInfo`, which is written as rsaEncryption like WebCrypto does.
    /// Throws `CryptoError` with function "d2i_PUBKEY" (empty input, a decoding error, trailing
    /// bytes) or "CredentialPublicKey" ("unsupported key type <name>", "unsupported EC curve
    /// <name>", "EC key without a named curve", "<kind> key cannot be used for <alg>", and the
    /// COSE constructor's errors).
    public init(derSubjectPublicKeyInfo der: [UInt8], algorithm: SignatureAlgorithm? = nil) throws {
        let function = "CredentialPublicKey"
        let decoded = try EVPPKey.parseSubjectPublicKeyInfo(der)
        let kind = try decoded.kind(function: function)
        let chosen = try kind.algorithm(requested: algorithm, function: function)
        switch kind {
        case .ec(let curve):
            let (x, y) = try decoded.publicCoordinates(count: curve.byteCount)
            try self.init(algorithm: chosen, coseKey: .ec2(curve: curve.ellipticCurve, x: x, y: y))
        case .ed25519:
            try self.init(algorithm: chosen, coseKey: .okp(curve: .ed25519, x: try decoded.rawPublicKey()))
        case .rsa, .rsaPSS:
            guard let n = try decoded.magnitudeParameter(ParameterName.rsaModulus),
                let e = try decoded.magnitudeParameter(ParameterName.rsaPublicExponent)
            else { throw CryptoError.openSSL("EVP_PKEY_get_bn_param") }
            try self.init(algorithm: chosen, coseKey: .rsa(n: n, e: e))
        }
    }

    /// Creates a key from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo); as `init(derSubjectPublicKeyInfo:algorithm:)`,
    /// plus function "PEM_read_bio" errors for text that is not one such PEM block.
    public init(pem: String, algorithm: SignatureAlgorithm? = nil) throws {
        try self.init(derSubjectPublicKeyInfo: try OpenSSL.der(fromPEM: pem, label: "PUBLIC KEY"), algorithm: algorithm)
    }

    /// The DER SubjectPublicKeyInfo. RSA keys, PS256 ones included, are written as rsaEncryption.
    public var derSubjectPublicKeyInfo: [UInt8] {
        OpenSSL.mustSucceed { try key.derSubjectPublicKeyInfo() }
    }

    /// The SubjectPublicKeyInfo as PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pem: String {
        OpenSSL.mustSucceed { try OpenSSL.pem(label: "PUBLIC KEY", der: derSubjectPublicKeyInfo) }
    }

    /// Whether `signature` is this key's signature over `message` under its algorithm: DER ECDSA
    /// for the ES algorithms (strict DER, as OpenSSL checks it), 64 bytes for EdDSA, a block of
    /// the modulus length for RS256 and PS256 (PS256 requires MGF1-SHA-256 and a 32-byte salt).
    /// Never throws: a malformed signature is just not valid.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard !signature.isEmpty else { return false }
        defer { ERR_clear_error() }
        switch algorithm {
        case .es256, .es384, .es512, .es256k:
            let curve = algorithm.ecCurve!
            guard signature.count <= curve.maximumSignatureByteCount else { return false }
            let digest = curve.digest.hash(message)
            guard let context = try? key.makeContext() else { return false }
            defer { withExtendedLifetime(context) {} }
            guard EVP_PKEY_verify_init(context.pointer) == 1 else { return false }
            return EVP_PKEY_verify(context.pointer, signature, signature.count, digest, digest.count) == 1
        case .edDSA:
            guard signature.count == 64,
                let context = try? OpenSSLObject(EVP_MD_CTX_new(), "EVP_MD_CTX_new", release: { EVP_MD_CTX_free($0) })
            else { return false }
            defer { withExtendedLifetime(context) {} }
            guard EVP_DigestVerifyInit_ex(context.pointer, nil, nil, nil, nil, key.pointer, nil) == 1 else { return false }
            return OpenSSL.withBytes(message) { bytes, count in
                EVP_DigestVerify(context.pointer, signature, signature.count, bytes, count) == 1
            }
        case .rs256, .ps256:
            guard case .rsa(let n, _) = coseKey, signature.count == n.count else { return false }
            let digest = SHA256.hash(message)
            guard let context = try? key.makeContext() else { return false }
            defer { withExtendedLifetime(context) {} }
            guard EVP_PKEY_verify_init(context.pointer) == 1,
                (try? RSAPadding.configure(context.pointer, pss: algorithm == .ps256)) != nil
            else { return false }
            return EVP_PKEY_verify(context.pointer, signature, signature.count, digest, digest.count) == 1
        }
    }

    /// Equal when the algorithms and COSE parameters are.
    public static func == (lhs: CredentialPublicKey, rhs: CredentialPublicKey) -> Bool {
        lhs.algorithm == rhs.algorithm && lhs.coseKey == rhs.coseKey
    }

    /// Hashes the algorithm and the COSE parameters.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(algorithm)
        hasher.combine(coseKey)
    }

    /// Checks RSA public values (minimal magnitudes), throwing `CryptoError(function: function, ...)`
    /// "<prefix> modulus must be 2048 to 4096 bits, got <n>" or "<prefix> public exponent must be
    /// odd, at least 3 and below n".
    static func validateRSA(modulus: [UInt8], exponent: [UInt8], function: String, prefix: String) throws {
        let bits = RSAPrivateComponents.bitCount(of: modulus)
        guard RSAPrivateComponents.modulusBitCounts.contains(bits) else {
            throw CryptoError.invalidInput(
                function,
                "\(prefix) modulus must be \(RSAPrivateComponents.modulusBitCounts.lowerBound) to "
                    + "\(RSAPrivateComponents.modulusBitCounts.upperBound) bits, got \(bits)")
        }
        let odd = (exponent.last ?? 0) & 1 == 1
        let atLeastThree = exponent.count > 1 || (exponent.first ?? 0) >= 3
        let belowModulus = exponent.count < modulus.count
            || (exponent.count == modulus.count && exponent.lexicographicallyPrecedes(modulus))
        guard odd, atLeastThree, belowModulus else {
            throw CryptoError.invalidInput(function, "\(prefix) public exponent must be odd, at least 3 and below n")
        }
    }
}
