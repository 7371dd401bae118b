internal import COpenSSL

extension P256PrivateKey {
    /// ECDSA-SHA256 with the deterministic nonce of RFC 6979 §3.2 (HMAC-SHA-256 DRBG over the
    /// private key and the message hash); DER signature. The same key and message always give
    /// the same signature, which is what a deterministic (replayable) card needs. OpenSSL 3.0 has
    /// no deterministic ECDSA, so the signing equation is computed here with its big numbers:
    /// r = (k·G).x mod n, s = k⁻¹(z + r·d) mod n.
    public func deterministicSignature(for message: [UInt8]) throws -> [UInt8] {
        let digest = SHA256.hash(message)
        let context = try OpenSSLObject(BN_CTX_new(), "BN_CTX_new", release: { BN_CTX_free($0) })
        let group = FetchedAlgorithms.p256Group
        defer { withExtendedLifetime(context) {} }
        let order = try OpenSSL.nonNull(EC_GROUP_get0_order(group.pointer), "EC_GROUP_get0_order")
        let orderBytes = try OpenSSL.bytes(of: order, count: 32, function: "BN_bn2binpad")

        func bigNumber(_ bytes: [UInt8]) throws -> OpenSSLObject<OpaquePointer> {
            let number = try OpenSSLObject(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn",
                                           release: { BN_clear_free($0) })
            BN_set_flags(number.pointer, BN_FLG_CONSTTIME)
            return number
        }
        func newNumber() throws -> OpenSSLObject<OpaquePointer> {
            try OpenSSLObject(BN_new(), "BN_new", release: { BN_clear_free($0) })
        }

        // z = bits2int(H(m)) mod n; for P-256 with SHA-256 qlen == hlen, so one subtraction at most.
        let hash = try bigNumber(digest)
        let z = try newNumber()
        try OpenSSL.check(BN_nnmod(z.pointer, hash.pointer, order, context.pointer), "BN_nnmod")
        let zBytes = try OpenSSL.bytes(of: z.pointer, count: 32, function: "BN_bn2binpad")
        let d = try bigNumber(rawScalar)

        var nonces = RFC6979Nonces(privateKey: rawScalar, reducedHash: zBytes, order: orderBytes)
        while true {
            let kBytes = nonces.next()
            let k = try bigNumber(kBytes)
            let point = try OpenSSLObject(EC_POINT_new(group.pointer), "EC_POINT_new", release: { EC_POINT_free($0) })
            let x = try newNumber()
            let r = try newNumber()
            let s = try newNumber()
            let kInverse = try newNumber()
            defer { withExtendedLifetime((k, point, x, r, s, kInverse)) {} }
            try OpenSSL.check(EC_POINT_mul(group.pointer, point.pointer, k.pointer, nil, nil, context.pointer), "EC_POINT_mul")
            try OpenSSL.check(EC_POINT_get_affine_coordinates(group.pointer, point.pointer, x.pointer, nil, context.pointer),
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
            return DERSignature.encode(r: try OpenSSL.bytes(of: r.pointer, count: 32, function: "BN_bn2binpad"),
                                       s: try OpenSSL.bytes(of: s.pointer, count: 32, function: "BN_bn2binpad"))
        }
    }
}

/// The candidate nonces of RFC 6979 §3.2 steps b–h for a 256-bit order and HMAC-SHA-256.
struct RFC6979Nonces {
    private var k = [UInt8](repeating: 0x00, count: 32)
    private var v = [UInt8](repeating: 0x01, count: 32)
    private let order: [UInt8]
    private var first = true

    init(privateKey: [UInt8], reducedHash: [UInt8], order: [UInt8]) {
        self.order = order
        k = HMACSHA256.authenticate(key: k, data: v + [0x00] + privateKey + reducedHash)
        v = HMACSHA256.authenticate(key: k, data: v)
        k = HMACSHA256.authenticate(key: k, data: v + [0x01] + privateKey + reducedHash)
        v = HMACSHA256.authenticate(key: k, data: v)
    }

    /// The next candidate k in [1, n-1].
    mutating func next() -> [UInt8] {
        while true {
            if !first {
                k = HMACSHA256.authenticate(key: k, data: v + [0x00])
                v = HMACSHA256.authenticate(key: k, data: v)
            }
            first = false
            v = HMACSHA256.authenticate(key: k, data: v)
            let candidate = v
            if candidate.contains(where: { $0 != 0 }), candidate.lexicographicallyPrecedes(order) {
                return candidate
            }
        }
    }
}

/// DER encoding of an ECDSA signature: SEQUENCE { INTEGER r, INTEGER s } (X9.62).
enum DERSignature {
    static func encode(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }
}
