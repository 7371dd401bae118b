internal import COpenSSL

/// What kind of signing key an `EVP_PKEY` is, as far as the COSE algorithms go.
enum KeyKind: CustomStringConvertible {
    case ec(ECCurve)
    case ed25519
    /// rsaEncryption: usable for RS256 or PS256.
    case rsa
    /// id-RSASSA-PSS: an RSA key marked for PSS only.
    case rsaPSS

    /// E.g. "EC P-384", "Ed25519", "RSA", "RSA-PSS".
    var description: String {
        switch self {
        case .ec(let curve): "EC \(curve.ellipticCurve)"
        case .ed25519: "Ed25519"
        case .rsa: "RSA"
        case .rsaPSS: "RSA-PSS"
        }
    }

    /// The algorithm an importer picks when the caller names none (RS256 for a plain RSA key).
    var defaultAlgorithm: SignatureAlgorithm {
        switch self {
        case .ec(let curve): curve.algorithm
        case .ed25519: .edDSA
        case .rsa: .rs256
        case .rsaPSS: .ps256
        }
    }

    /// Whether a key of this kind can sign for `algorithm`.
    func allows(_ algorithm: SignatureAlgorithm) -> Bool {
        switch self {
        case .ec(let curve): algorithm.ecCurve?.ellipticCurve == curve.ellipticCurve
        case .ed25519: algorithm == .edDSA
        case .rsa: algorithm == .rs256 || algorithm == .ps256
        case .rsaPSS: algorithm == .ps256
        }
    }

    /// The algorithm to use for a key of this kind: `requested` if it fits, else the default.
    /// Throws `CryptoError(function: function, reason: "<kind> key cannot be used for <alg>")`.
    func algorithm(requested: SignatureAlgorithm?, function: String) throws -> SignatureAlgorithm {
        guard let requested else { return defaultAlgorithm }
        guard allows(requested) else {
            throw CryptoError.invalidInput(function, "\(self) key cannot be used for \(requested.name)")
        }
        return requested
    }
}

extension EVPPKey {
    /// The kind of this key; throws `CryptoError(function: function, ...)` with reason
    /// "unsupported key type <name>", "EC key without a named curve" or "unsupported EC curve <name>".
    func kind(function: String) throws -> KeyKind {
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            guard let name = groupName else {
                throw CryptoError.invalidInput(function, "EC key without a named curve")
            }
            guard let curve = ECCurve.named(name) else {
                throw CryptoError.invalidInput(function, "unsupported EC curve \(name)")
            }
            return .ec(curve)
        }
        if EVP_PKEY_is_a(pointer, "ED25519") == 1 { return .ed25519 }
        if EVP_PKEY_is_a(pointer, "RSA-PSS") == 1 { return .rsaPSS }
        if EVP_PKEY_is_a(pointer, "RSA") == 1 { return .rsa }
        let name = EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "unknown"
        throw CryptoError.invalidInput(function, "unsupported key type \(name)")
    }

    /// An octet-string key parameter (e.g. the EC public point), or nil when the key has none.
    func octetStringParameter(_ name: String, maximumCount: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: maximumCount)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, name, &out, out.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(out.prefix(length))
    }

    /// A BIGNUM-valued key parameter as its minimal big-endian magnitude, or nil when absent.
    func magnitudeParameter(_ name: StaticString) throws -> [UInt8]? {
        var value: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name.cString, &value) == 1, let value else {
            ERR_clear_error()
            return nil
        }
        let number = try OpenSSLObject(value, "EVP_PKEY_get_bn_param", release: { BN_clear_free($0) })
        defer { withExtendedLifetime(number) {} }
        return OpenSSL.magnitude(of: number.pointer)
    }

    /// The raw public key of an Ed25519 key (32 bytes).
    func rawPublicKey() throws -> [UInt8] {
        try rawKey(EVP_PKEY_get_raw_public_key, "EVP_PKEY_get_raw_public_key")
    }

    /// The raw private key (seed) of an Ed25519 key (32 bytes).
    func rawPrivateKey() throws -> [UInt8] {
        try rawKey(EVP_PKEY_get_raw_private_key, "EVP_PKEY_get_raw_private_key")
    }

    /// 32 raw key bytes through `get`, one of the two `EVP_PKEY_get_raw_*_key` calls named `function`.
    private func rawKey(_ get: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?) -> Int32,
                        _ function: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = out.count
        try OpenSSL.check(get(pointer, &out, &length), function)
        guard length == out.count else {
            throw CryptoError.invalidInput(function, "unexpected length \(length)")
        }
        return out
    }

    /// The DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    func derSubjectPublicKeyInfo() throws -> [UInt8] {
        try OpenSSL.encodeDER("i2d_PUBKEY") { i2d_PUBKEY(pointer, $0) }
    }

    /// Parses exactly one DER SubjectPublicKeyInfo (`d2i_PUBKEY`); throws with function
    /// "d2i_PUBKEY" for empty input, an OpenSSL decoding error, or trailing bytes.
    static func parseSubjectPublicKeyInfo(_ der: [UInt8]) throws -> EVPPKey {
        try OpenSSL.decodeDER(der, "d2i_PUBKEY", what: "SubjectPublicKeyInfo") { cursor, count in
            EVPPKey(taking: try OpenSSL.nonNull(d2i_PUBKEY(nil, cursor, count), "d2i_PUBKEY"))
        }
    }

    /// The unencrypted PKCS #8 PrivateKeyInfo, DER (`EVP_PKEY2PKCS8`, `i2d_PKCS8_PRIV_KEY_INFO`).
    func pkcs8DER() throws -> [UInt8] {
        let info = try OpenSSLObject(EVP_PKEY2PKCS8(pointer), "EVP_PKEY2PKCS8", release: { PKCS8_PRIV_KEY_INFO_free($0) })
        defer { withExtendedLifetime(info) {} }
        return try OpenSSL.encodeDER("i2d_PKCS8_PRIV_KEY_INFO") { i2d_PKCS8_PRIV_KEY_INFO(info.pointer, $0) }
    }

    /// Parses exactly one unencrypted DER PKCS #8 PrivateKeyInfo; throws with function
    /// "d2i_PKCS8_PRIV_KEY_INFO" (empty input, decoding error, trailing bytes) or "EVP_PKCS82PKEY".
    static func parsePKCS8(_ der: [UInt8]) throws -> EVPPKey {
        let info = try OpenSSL.decodeDER(der, "d2i_PKCS8_PRIV_KEY_INFO", what: "PrivateKeyInfo") { cursor, count in
            try OpenSSLObject(d2i_PKCS8_PRIV_KEY_INFO(nil, cursor, count), "d2i_PKCS8_PRIV_KEY_INFO",
                              release: { PKCS8_PRIV_KEY_INFO_free($0) })
        }
        defer { withExtendedLifetime(info) {} }
        return EVPPKey(taking: try OpenSSL.nonNull(EVP_PKCS82PKEY(info.pointer), "EVP_PKCS82PKEY"))
    }
}

extension OpenSSL {
    /// The minimal big-endian magnitude of a non-negative BIGNUM (`[0]` for zero).
    static func magnitude(of number: OpaquePointer) -> [UInt8] {
        let count = (Int(BN_num_bits(number)) + 7) / 8
        guard count > 0 else { return [0] }
        var out = [UInt8](repeating: 0, count: count)
        _ = BN_bn2bin(number, &out)
        return out
    }

    /// `bytes` as PEM with `label` (`PEM_write_bio`: base64 in 64-column lines).
    static func pem(label: StaticString, der: [UInt8]) throws -> String {
        let bio = try makeMemoryBIO()
        defer { withExtendedLifetime(bio) {} }
        try checkPositive(PEM_write_bio(bio.pointer, label.cString, "", der, der.count), "PEM_write_bio")
        return contents(ofMemoryBIO: bio.pointer)
    }

    /// The DER inside the first PEM block of `pem`, which must carry `label` and no headers;
    /// throws with function "PEM_read_bio" otherwise.
    static func der(fromPEM pem: String, label: String) throws -> [UInt8] {
        let text = Array(pem.utf8)
        return try text.withUnsafeBytes { storage in
            let bio = try makeReadOnlyBIO(over: storage, function: "PEM_read_bio")
            defer { withExtendedLifetime(bio) {} }
            var name: UnsafeMutablePointer<CChar>? = nil
            var header: UnsafeMutablePointer<CChar>? = nil
            var data: UnsafeMutablePointer<UInt8>? = nil
            var length = 0
            guard PEM_read_bio(bio.pointer, &name, &header, &data, &length) == 1 else {
                throw CryptoError.openSSL("PEM_read_bio")
            }
            defer {
                CRYPTO_free(name, nil, 0)
                CRYPTO_free(header, nil, 0)
                CRYPTO_free(data, nil, 0)
            }
            let foundLabel = name.map { String(cString: $0) } ?? ""
            guard foundLabel == label else {
                throw CryptoError.invalidInput("PEM_read_bio", "expected a \"\(label)\" PEM block, found \"\(foundLabel)\"")
            }
            guard header.map({ $0.pointee == 0 }) ?? true else {
                throw CryptoError.invalidInput("PEM_read_bio", "PEM headers (an encrypted key?) are not supported")
            }
            guard let data, length > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: data, count: length))
        }
    }
}
