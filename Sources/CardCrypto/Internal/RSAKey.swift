internal import COpenSSL

/// A two-prime RSA private key as the unsigned big-endian magnitudes of its PKCS #1 fields.
struct RSAPrivateComponents {
    var n, e, d, p, q, dp, dq, qInverse: [UInt8]

    /// The modulus sizes accepted on import (keys are generated with 2048).
    static let modulusBitCounts = 2048...4096

    /// Parses a DER PKCS #1 RSAPrivateKey (RFC 8017 A.1.2) of version 0 (two primes), strictly:
    /// minimal DER, no trailing bytes, no otherPrimeInfos. Nil for anything else.
    init?(der: [UInt8]) {
        var outer = DER.Reader(der)
        guard var body = outer.element(tag: 0x30), outer.isAtEnd,
            body.unsignedInteger() == [0],
            let n = body.unsignedInteger(), let e = body.unsignedInteger(), let d = body.unsignedInteger(),
            let p = body.unsignedInteger(), let q = body.unsignedInteger(), let dp = body.unsignedInteger(),
            let dq = body.unsignedInteger(), let qInverse = body.unsignedInteger(), body.isAtEnd
        else { return nil }
        self.init(n: n, e: e, d: d, p: p, q: q, dp: dp, dq: dq, qInverse: qInverse)
    }

    init(n: [UInt8], e: [UInt8], d: [UInt8], p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qInverse: [UInt8]) {
        (self.n, self.e, self.d, self.p, self.q, self.dp, self.dq, self.qInverse) = (n, e, d, p, q, dp, dq, qInverse)
    }

    /// The components of an OpenSSL RSA key, or nil if it is not a two-prime private key.
    init?(key: EVPPKey) throws {
        guard try key.magnitudeParameter(ParameterName.rsaFactor3) == nil,
            let n = try key.magnitudeParameter(ParameterName.rsaModulus),
            let e = try key.magnitudeParameter(ParameterName.rsaPublicExponent),
            let d = try key.magnitudeParameter(ParameterName.rsaPrivateExponent),
            let p = try key.magnitudeParameter(ParameterName.rsaFactor1),
            let q = try key.magnitudeParameter(ParameterName.rsaFactor2),
            let dp = try key.magnitudeParameter(ParameterName.rsaExponent1),
            let dq = try key.magnitudeParameter(ParameterName.rsaExponent2),
            let qInverse = try key.magnitudeParameter(ParameterName.rsaCoefficient1)
        else { return nil }
        self.init(n: n, e: e, d: d, p: p, q: q, dp: dp, dq: dq, qInverse: qInverse)
    }

    /// The DER PKCS #1 RSAPrivateKey, version 0.
    var der: [UInt8] {
        DER.sequence([[0x02, 0x01, 0x00]] + [n, e, d, p, q, dp, dq, qInverse].map(DER.integer))
    }

    /// The bit length of the modulus.
    var modulusBitCount: Int { Self.bitCount(of: n) }

    /// The bit length of the number whose big-endian magnitude is `magnitude`.
    static func bitCount(of magnitude: [UInt8]) -> Int {
        guard let first = magnitude.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (magnitude.count - first - 1) * 8 + (8 - magnitude[first].leadingZeroBitCount)
    }

    /// Checks that the fields make one working key, so that a corrupt or hand-edited key fails
    /// here rather than by signing wrongly: n = p·q, d·e ≡ 1 modulo p-1 and q-1 through
    /// dp = d mod (p-1) and dq = d mod (q-1), and q·qInverse ≡ 1 mod p. The primality of p and q
    /// is not tested (OpenSSL's check costs tens of milliseconds per key). Throws
    /// `CryptoError(function: function, reason: "<name> private key components are inconsistent")`.
    func validate(function: String, name: String) throws {
        let inconsistent = CryptoError.invalidInput(function, "\(name) private key components are inconsistent")
        let context = try OpenSSLObject(BN_CTX_new(), "BN_CTX_new", release: { BN_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        let numbers = try [n, e, d, p, q, dp, dq, qInverse].map { try RSAPrivateComponents.secretNumber($0) }
        let scratch = try (0..<3).map { _ in try RSAPrivateComponents.secretNumber([]) }
        defer { withExtendedLifetime((numbers, scratch)) {} }
        let (bnN, bnE, bnD, bnP, bnQ, bnDP, bnDQ, bnQInverse) =
            (numbers[0].pointer, numbers[1].pointer, numbers[2].pointer, numbers[3].pointer,
             numbers[4].pointer, numbers[5].pointer, numbers[6].pointer, numbers[7].pointer)
        let (product, pMinus1, qMinus1) = (scratch[0].pointer, scratch[1].pointer, scratch[2].pointer)
        let ctx = context.pointer

        guard BN_is_word(bnP, 1) == 0, BN_is_word(bnQ, 1) == 0, BN_is_zero(bnP) == 0, BN_is_zero(bnQ) == 0,
            BN_is_zero(bnD) == 0, BN_cmp(bnD, bnN) < 0
        else { throw inconsistent }
        try OpenSSL.check(BN_mul(product, bnP, bnQ, ctx), "BN_mul")
        guard BN_cmp(product, bnN) == 0 else { throw inconsistent }
        guard BN_copy(pMinus1, bnP) != nil, BN_sub_word(pMinus1, 1) == 1,
            BN_copy(qMinus1, bnQ) != nil, BN_sub_word(qMinus1, 1) == 1
        else { throw CryptoError.openSSL("BN_sub_word") }

        // dp = d mod (p-1), dq = d mod (q-1), e·dp ≡ 1 (mod p-1), e·dq ≡ 1 (mod q-1).
        for (exponent, modulus) in [(bnDP, pMinus1), (bnDQ, qMinus1)] {
            try OpenSSL.check(BN_nnmod(product, bnD, modulus, ctx), "BN_nnmod")
            guard BN_cmp(product, exponent) == 0 else { throw inconsistent }
            try OpenSSL.check(BN_mod_mul(product, bnE, exponent, modulus, ctx), "BN_mod_mul")
            guard BN_is_one(product) == 1 else { throw inconsistent }
        }
        // q·qInverse ≡ 1 (mod p), with qInverse reduced.
        guard BN_cmp(bnQInverse, bnP) < 0 else { throw inconsistent }
        try OpenSSL.check(BN_mod_mul(product, bnQ, bnQInverse, bnP, ctx), "BN_mod_mul")
        guard BN_is_one(product) == 1 else { throw inconsistent }
    }

    /// The OpenSSL key pair (`EVP_PKEY_fromdata` with all eight components, so OpenSSL signs with CRT).
    func makeKey() throws -> EVPPKey {
        let numbers = try [n, e, d, p, q, dp, dq, qInverse].map { try RSAPrivateComponents.secretNumber($0) }
        defer { withExtendedLifetime(numbers) {} }
        let names = [
            ParameterName.rsaModulus, ParameterName.rsaPublicExponent, ParameterName.rsaPrivateExponent,
            ParameterName.rsaFactor1, ParameterName.rsaFactor2, ParameterName.rsaExponent1,
            ParameterName.rsaExponent2, ParameterName.rsaCoefficient1,
        ]
        return try RSAPrivateComponents.importRSA(names: names, numbers: numbers.map(\.pointer),
                                                  selection: copenssl_EVP_PKEY_KEYPAIR)
    }

    /// An RSA public key from its modulus and public exponent magnitudes.
    static func makePublicKey(n: [UInt8], e: [UInt8]) throws -> EVPPKey {
        let numbers = try [n, e].map { try secretNumber($0) }
        defer { withExtendedLifetime(numbers) {} }
        return try importRSA(names: [ParameterName.rsaModulus, ParameterName.rsaPublicExponent],
                             numbers: numbers.map(\.pointer), selection: copenssl_EVP_PKEY_PUBLIC_KEY)
    }

    private static func importRSA(names: [StaticString], numbers: [OpaquePointer], selection: Int32) throws -> EVPPKey {
        let builder = try OpenSSLObject(OSSL_PARAM_BLD_new(), "OSSL_PARAM_BLD_new", release: { OSSL_PARAM_BLD_free($0) })
        defer { withExtendedLifetime(builder) {} }
        for (name, number) in zip(names, numbers) {
            try OpenSSL.check(OSSL_PARAM_BLD_push_BN(builder.pointer, name.cString, number), "OSSL_PARAM_BLD_push_BN")
        }
        let params = try OpenSSLObject(
            OSSL_PARAM_BLD_to_param(builder.pointer), "OSSL_PARAM_BLD_to_param", release: { OSSL_PARAM_free($0) })
        defer { withExtendedLifetime(params) {} }
        return try EVPPKey.fromData(keyType: "RSA", selection: selection, params: params.pointer)
    }

    /// A BIGNUM holding `magnitude`, flagged constant-time and cleared when freed.
    static func secretNumber(_ magnitude: [UInt8]) throws -> OpenSSLObject<OpaquePointer> {
        let number = try OpenSSL.withBytes(magnitude) { bytes, count in
            try OpenSSLObject(BN_bin2bn(bytes, Int32(count), nil), "BN_bin2bn", release: { BN_clear_free($0) })
        }
        BN_set_flags(number.pointer, BN_FLG_CONSTTIME)
        return number
    }
}

extension RSAPrivateComponents {
    /// The public exponent of generated keys.
    static let generatedPublicExponent: UInt = 65537
    /// Candidates drawn per prime before giving up on the random stream (about 355 are needed
    /// on average; failing 20,000 in a row has probability below e⁻⁵⁶).
    static let maximumPrimeCandidates = 20_000

    /// A 2048-bit key whose primes come from `randomBytes` alone, so a seeded card generates the
    /// same key from the same stream (OpenSSL's own RSA keygen draws from its DRBG).
    ///
    /// p, then q: each is the first candidate of 128 stream bytes, with its top two bits and its
    /// low bit set (so p·q has exactly 2048 bits), for which gcd(65537, candidate - 1) = 1 and
    /// OpenSSL's `BN_check_prime` (trial division, then 64 Miller–Rabin rounds) says prime, and
    /// q ≠ p. Then d = e⁻¹ mod lcm(p-1, q-1) and the CRT values. Costs tens to hundreds of
    /// milliseconds, most of it in the primality tests.
    static func generate(randomBytes: (Int) -> [UInt8], function: String) throws -> RSAPrivateComponents {
        let context = try OpenSSLObject(BN_CTX_new(), "BN_CTX_new", release: { BN_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        let ctx = context.pointer

        func prime(distinctFrom other: OpaquePointer?) throws -> OpenSSLObject<OpaquePointer> {
            for _ in 0..<maximumPrimeCandidates {
                var bytes = try RandomStream.draw(128, from: randomBytes, function: function)
                bytes[0] |= 0xC0
                bytes[127] |= 0x01
                let candidate = try secretNumber(bytes)
                // e = 65537 is prime, so gcd(e, candidate - 1) = 1 unless e divides candidate - 1.
                guard BN_mod_word(candidate.pointer, generatedPublicExponent) != 1 else { continue }
                if let other, BN_cmp(candidate.pointer, other) == 0 { continue }
                let verdict = BN_check_prime(candidate.pointer, ctx, nil)
                guard verdict >= 0 else { throw CryptoError.openSSL("BN_check_prime") }
                if verdict == 1 { return candidate }
            }
            throw CryptoError.invalidInput(
                function, "random stream gave no 1024-bit prime in \(maximumPrimeCandidates) candidates")
        }

        let p = try prime(distinctFrom: nil)
        let q = try prime(distinctFrom: p.pointer)
        let numbers = try (0..<9).map { _ in try secretNumber([]) }
        defer { withExtendedLifetime((p, q, numbers)) {} }
        let (n, e, d, pMinus1, qMinus1, gcd, lcm, dp, dq) =
            (numbers[0].pointer, numbers[1].pointer, numbers[2].pointer, numbers[3].pointer, numbers[4].pointer,
             numbers[5].pointer, numbers[6].pointer, numbers[7].pointer, numbers[8].pointer)
        let qInverse = try secretNumber([])
        defer { withExtendedLifetime(qInverse) {} }

        try OpenSSL.check(BN_set_word(e, generatedPublicExponent), "BN_set_word")
        try OpenSSL.check(BN_mul(n, p.pointer, q.pointer, ctx), "BN_mul")
        guard BN_copy(pMinus1, p.pointer) != nil, BN_sub_word(pMinus1, 1) == 1,
            BN_copy(qMinus1, q.pointer) != nil, BN_sub_word(qMinus1, 1) == 1
        else { throw CryptoError.openSSL("BN_sub_word") }
        // lcm(p-1, q-1) = (p-1)(q-1) / gcd(p-1, q-1); the product goes in d for a moment.
        try OpenSSL.check(BN_gcd(gcd, pMinus1, qMinus1, ctx), "BN_gcd")
        try OpenSSL.check(BN_mul(d, pMinus1, qMinus1, ctx), "BN_mul")
        try OpenSSL.check(BN_div(lcm, nil, d, gcd, ctx), "BN_div")
        guard BN_mod_inverse(d, e, lcm, ctx) != nil else { throw CryptoError.openSSL("BN_mod_inverse") }
        try OpenSSL.check(BN_nnmod(dp, d, pMinus1, ctx), "BN_nnmod")
        try OpenSSL.check(BN_nnmod(dq, d, qMinus1, ctx), "BN_nnmod")
        guard BN_mod_inverse(qInverse.pointer, q.pointer, p.pointer, ctx) != nil else {
            throw CryptoError.openSSL("BN_mod_inverse")
        }
        guard BN_num_bits(n) == 2048 else {
            throw CryptoError.invalidInput(function, "generated modulus has \(BN_num_bits(n)) bits")
        }
        return RSAPrivateComponents(
            n: OpenSSL.magnitude(of: n), e: OpenSSL.magnitude(of: e), d: OpenSSL.magnitude(of: d),
            p: OpenSSL.magnitude(of: p.pointer), q: OpenSSL.magnitude(of: q.pointer),
            dp: OpenSSL.magnitude(of: dp), dq: OpenSSL.magnitude(of: dq),
            qInverse: OpenSSL.magnitude(of: qInverse.pointer))
    }
}

/// EMSA-PSS encoding (RFC 8017 §9.1.1) with SHA-256, MGF1-SHA-256 and a caller-supplied salt:
/// OpenSSL only salts PSS from its own DRBG, which a deterministic card cannot use.
enum PSSEncoding {
    /// The encoded message EM for a key of `modulusBitCount` bits, left-padded to the modulus
    /// length so that it is the input of the raw RSA private-key operation.
    static func encode(messageHash: [UInt8], salt: [UInt8], modulusBitCount: Int) throws -> [UInt8] {
        let emBits = modulusBitCount - 1
        let emLength = (emBits + 7) / 8
        let hashLength = SHA256.byteCount
        guard emLength >= hashLength + salt.count + 2 else {
            throw CryptoError.invalidInput("PSSEncoding", "modulus too short for the salt")
        }
        let h = SHA256.hash([[UInt8](repeating: 0, count: 8), messageHash, salt])
        let dbLength = emLength - hashLength - 1
        var db = [UInt8](repeating: 0, count: dbLength - salt.count - 1) + [0x01] + salt
        let mask = mgf1(seed: h, count: dbLength)
        for index in db.indices { db[index] ^= mask[index] }
        db[0] &= 0xFF >> (8 * emLength - emBits)
        let em = db + h + [0xBC]
        let modulusLength = (modulusBitCount + 7) / 8
        return [UInt8](repeating: 0, count: modulusLength - em.count) + em
    }

    /// MGF1 with SHA-256 (RFC 8017 B.2.1).
    static func mgf1(seed: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + SHA256.byteCount)
        var counter: UInt32 = 0
        while out.count < count {
            let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (24 - 8 * $0)) }
            out += SHA256.hash([seed, counterBytes])
            counter += 1
        }
        return Array(out.prefix(count))
    }
}

/// The RSA signature padding of RS256 and PS256 on a sign or verify context.
enum RSAPadding {
    /// RS256: PKCS #1 v1.5 with SHA-256. PS256: PSS with SHA-256, MGF1-SHA-256 and a 32-byte
    /// salt (which verification also requires exactly).
    static func configure(_ context: OpaquePointer, pss: Bool) throws {
        let sha256 = FetchedAlgorithms.sha256.pointer
        if pss {
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
            try OpenSSL.check(EVP_PKEY_CTX_set_signature_md(context, sha256), "EVP_PKEY_CTX_set_signature_md")
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_mgf1_md(context, sha256), "EVP_PKEY_CTX_set_rsa_mgf1_md")
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(SHA256.byteCount)),
                              "EVP_PKEY_CTX_set_rsa_pss_saltlen")
        } else {
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
            try OpenSSL.check(EVP_PKEY_CTX_set_signature_md(context, sha256), "EVP_PKEY_CTX_set_signature_md")
        }
    }
}
