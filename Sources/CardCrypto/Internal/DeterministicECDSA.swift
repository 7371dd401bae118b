internal import COpenSSL

/// ECDSA with the deterministic nonce of RFC 6979 §3.2, for any of the ES curves and its hash.
///
/// OpenSSL 3.0 has no deterministic ECDSA, so the signing equation is computed here with its
/// big numbers: r = (k·G).x mod n, s = k⁻¹(z + r·d) mod n, where z = bits2int(H(m)) mod n.
enum DeterministicECDSA {
    /// The DER signature of the message whose hash is `digest`, under the private scalar
    /// `scalar` (`curve.byteCount` big-endian bytes, already validated to lie in [1, n)).
    ///
    /// The nonce's HMAC is `nonceDigest`, by default the curve's own hash; the vectors of RFC 6979
    /// pair each curve with other hashes too, which is how the tests reach bits2int's truncation.
    static func signature(digest: [UInt8], scalar: [UInt8], curve: ECCurve, nonceDigest: DigestAlgorithm? = nil) throws -> [UInt8] {
        let context = try OpenSSLObject(BN_CTX_new(), "BN_CTX_new", release: { BN_CTX_free($0) })
        defer { withExtendedLifetime(context) {} }
        let group = curve.group.pointer
        let order = try OpenSSL.nonNull(EC_GROUP_get0_order(group), "EC_GROUP_get0_order")

        func bigNumber(_ bytes: [UInt8]) throws -> OpenSSLObject<OpaquePointer> {
            let number = try OpenSSLObject(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn",
                                           release: { BN_clear_free($0) })
            BN_set_flags(number.pointer, BN_FLG_CONSTTIME)
            return number
        }
        func newNumber() throws -> OpenSSLObject<OpaquePointer> {
            try OpenSSLObject(BN_new(), "BN_new", release: { BN_clear_free($0) })
        }

        let reducedHash = RFC6979.bits2octets(digest, order: curve.order, orderBitCount: curve.orderBitCount)
        let z = try bigNumber(reducedHash)
        let d = try bigNumber(scalar)
        let point = try OpenSSLObject(EC_POINT_new(group), "EC_POINT_new", release: { EC_POINT_free($0) })
        let x = try newNumber()
        let r = try newNumber()
        let s = try newNumber()
        let kInverse = try newNumber()
        defer { withExtendedLifetime((z, d, point, x, r, s, kInverse)) {} }

        var nonces = RFC6979Nonces(
            digest: nonceDigest ?? curve.digest, privateKey: scalar, reducedHash: reducedHash,
            order: curve.order, orderBitCount: curve.orderBitCount)
        while true {
            let k = try bigNumber(nonces.next())
            defer { withExtendedLifetime(k) {} }
            try OpenSSL.check(EC_POINT_mul(group, point.pointer, k.pointer, nil, nil, context.pointer), "EC_POINT_mul")
            try OpenSSL.check(EC_POINT_get_affine_coordinates(group, point.pointer, x.pointer, nil, context.pointer),
                              "EC_POINT_get_affine_coordinates")
            try OpenSSL.check(BN_nnmod(r.pointer, x.pointer, order, context.pointer), "BN_nnmod")
            if BN_is_zero(r.pointer) != 0 { continue }
            guard BN_mod_inverse(kInverse.pointer, k.pointer, order, context.pointer) != nil else {
                throw CryptoError.openSSL("BN_mod_inverse")
            }
            try OpenSSL.check(BN_mod_mul(s.pointer, r.pointer, d.pointer, order, context.pointer), "BN_mod_mul")
            try OpenSSL.check(BN_mod_add(s.pointer, s.pointer, z.pointer, order, context.pointer), "BN_mod_add")
            try OpenSSL.check(BN_mod_mul(s.pointer, s.pointer, kInverse.pointer, order, context.pointer), "BN_mod_mul")
            if BN_is_zero(s.pointer) != 0 { continue }
            return DERSignature.encode(
                r: try OpenSSL.bytes(of: r.pointer, count: curve.byteCount, function: "BN_bn2binpad"),
                s: try OpenSSL.bytes(of: s.pointer, count: curve.byteCount, function: "BN_bn2binpad"))
        }
    }
}

/// The conversions of RFC 6979 §2.3 on big-endian byte strings, for an order n of qlen bits
/// (rlen = 8·⌈qlen/8⌉; every result is ⌈qlen/8⌉ bytes).
enum RFC6979 {
    /// bits2int (§2.3.2): the leftmost qlen bits of `bits` as an integer (all of them, when
    /// there are fewer). For P-521 (qlen 521) a 1024-bit string is shifted right by 503 bits,
    /// and a 512-bit SHA-512 hash is kept whole.
    static func bits2int(_ bits: [UInt8], orderBitCount qlen: Int) -> [UInt8] {
        let count = (qlen + 7) / 8
        let excess = bits.count * 8 - qlen
        guard excess > 0 else {
            return [UInt8](repeating: 0, count: count - bits.count) + bits
        }
        let kept = bits.prefix(bits.count - excess / 8)
        let shift = excess % 8
        guard shift > 0 else { return Array(kept.suffix(count)) }
        var shifted = [UInt8](repeating: 0, count: kept.count)
        var carry: UInt8 = 0
        for (index, byte) in kept.enumerated() {
            shifted[index] = carry | byte >> shift
            carry = byte << (8 - shift)
        }
        return Array(shifted.suffix(count))
    }

    /// bits2octets (§2.3.4): int2octets(bits2int(`bits`) mod n). bits2int is below 2^qlen < 2n,
    /// so one subtraction reduces it.
    static func bits2octets(_ bits: [UInt8], order: [UInt8], orderBitCount qlen: Int) -> [UInt8] {
        let value = bits2int(bits, orderBitCount: qlen)
        guard !value.lexicographicallyPrecedes(order) else { return value }
        var difference = [UInt8](repeating: 0, count: value.count)
        var borrow = 0
        for index in stride(from: value.count - 1, through: 0, by: -1) {
            var digit = Int(value[index]) - Int(order[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            difference[index] = UInt8(digit)
        }
        return difference
    }
}

/// The candidate nonces of RFC 6979 §3.2 steps b–h: an HMAC-DRBG over the private key and the
/// reduced message hash, with the signature's own hash as HMAC (SHA-256 for ES256 and ES256K,
/// SHA-384 for ES384, SHA-512 for ES512).
struct RFC6979Nonces {
    private let digest: DigestAlgorithm
    private var k: [UInt8]
    private var v: [UInt8]
    private let order: [UInt8]
    private let orderBitCount: Int
    private var first = true

    /// - Parameters:
    ///   - privateKey: int2octets(x), ⌈qlen/8⌉ bytes.
    ///   - reducedHash: bits2octets(H(m)), ⌈qlen/8⌉ bytes.
    ///   - order: n, ⌈qlen/8⌉ bytes; `orderBitCount` is qlen.
    init(digest: DigestAlgorithm, privateKey: [UInt8], reducedHash: [UInt8], order: [UInt8], orderBitCount: Int) {
        self.digest = digest
        self.order = order
        self.orderBitCount = orderBitCount
        k = [UInt8](repeating: 0x00, count: digest.byteCount)
        v = [UInt8](repeating: 0x01, count: digest.byteCount)
        k = digest.authenticate(key: k, parts: [v, [0x00], privateKey, reducedHash])
        v = digest.authenticate(key: k, parts: [v])
        k = digest.authenticate(key: k, parts: [v, [0x01], privateKey, reducedHash])
        v = digest.authenticate(key: k, parts: [v])
    }

    /// The next candidate k in [1, n-1], ⌈qlen/8⌉ big-endian bytes.
    mutating func next() -> [UInt8] {
        while true {
            if !first {
                k = digest.authenticate(key: k, parts: [v, [0x00]])
                v = digest.authenticate(key: k, parts: [v])
            }
            first = false
            var t: [UInt8] = []
            t.reserveCapacity((orderBitCount + 7) / 8 + digest.byteCount)
            while t.count * 8 < orderBitCount {
                v = digest.authenticate(key: k, parts: [v])
                t += v
            }
            let candidate = RFC6979.bits2int(t, orderBitCount: orderBitCount)
            if candidate.contains(where: { $0 != 0 }), candidate.lexicographicallyPrecedes(order) {
                return candidate
            }
        }
    }
}
