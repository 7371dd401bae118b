import CardCrypto
import Testing

@Suite("P-256 keys, ECDSA and ECDH")
struct P256Tests {
    /// The P-256 group order n.
    static let order = Hex.bytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
    /// The P-256 field prime p.
    static let prime = Hex.bytes("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")

    // RFC 5903 §8.1 (256-bit random ECP group).
    static let i = Hex.bytes("C88F01F510D9AC3F70A292DAA2316DE544E9AAB8AFE84049C62A9C57862D1433")
    static let giX = Hex.bytes("DAD0B65394221CF9B051E1FECA5787D098DFE637FC90B9EF945D0C3772581180")
    static let giY = Hex.bytes("5271A0461CDB8252D61F1C456FA3E59AB1F45B33ACCF5F58389E0577B8990BB3")
    static let r = Hex.bytes("C6EF9C5D78AE012A011164ACB397CE2088685D8F06BF9BE0B283AB46476BEE53")
    static let grX = Hex.bytes("D12DFB5289C8D4F81208B70270398C342296970A0BCCB74C736FC7554494BF63")
    static let grY = Hex.bytes("56FBF3CA366CC23E8157854C13C58D6AAC23F046ADA30F8353E74F33039872AB")
    static let girX = Hex.bytes("D6840F6B42F6EDAFD13116E0E12565202FEF8E9ECE7DCE03812464D04B9442DE")

    @Test("Sign then verify; a tampered message or signature fails")
    func signVerify() throws {
        let key = try P256PrivateKey()
        let message = Array("clientDataHash and authenticatorData".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.first == 0x30)
        #expect(signature.count <= 72)
        #expect(key.publicKey.isValidSignature(signature, for: message))

        var tamperedMessage = message
        tamperedMessage[0] ^= 1
        #expect(!key.publicKey.isValidSignature(signature, for: tamperedMessage))

        var tamperedSignature = signature
        tamperedSignature[tamperedSignature.count - 1] ^= 1
        #expect(!key.publicKey.isValidSignature(tamperedSignature, for: message))

        let otherKey = try P256PrivateKey()
        #expect(!otherKey.publicKey.isValidSignature(signature, for: message))
    }

    @Test("Digest signing matches message signing and verifies both ways")
    func digestSigning() throws {
        let key = try P256PrivateKey()
        let message = Array("message".utf8)
        let digest = SHA256.hash(message)
        let signature = try key.signature(forDigest: digest)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(key.publicKey.isValidSignature(signature, forDigest: digest))
        #expect(key.publicKey.isValidSignature(try key.signature(for: message), forDigest: digest))
        #expect(!key.publicKey.isValidSignature(signature, forDigest: Array(digest.prefix(31))))
        #expect(throws: CryptoError(function: "P256PrivateKey.signature", reason: "digest must be 32 bytes, got 31")) { try key.signature(forDigest: Array(digest.prefix(31))) }
        #expect(throws: CryptoError(function: "P256PrivateKey.signature", reason: "digest must be 32 bytes, got 33")) { try key.signature(forDigest: digest + [0]) }
    }

    @Test("Garbage signatures return false instead of crashing")
    func garbageSignatures() throws {
        let key = try P256PrivateKey()
        let message = Array("message".utf8)
        let valid = try key.signature(for: message)
        let garbage: [[UInt8]] = [
            [], [0x30], [0x30, 0x00], [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],
            [UInt8](repeating: 0xFF, count: 72), [UInt8](repeating: 0, count: 1000), SecureRandom.bytes(70),
            valid + [0x00],  // trailing data
            Array(valid.dropLast()),
        ]
        for signature in garbage {
            #expect(!key.publicKey.isValidSignature(signature, for: message))
            #expect(!key.publicKey.isValidSignature(signature, forDigest: SHA256.hash(message)))
        }
        // The error queue is left clean: a later valid check still succeeds.
        #expect(key.publicKey.isValidSignature(valid, for: message))
    }

    @Test("rawScalar round trip reproduces the same key")
    func rawScalarRoundTrip() throws {
        let key = try P256PrivateKey()
        #expect(key.rawScalar.count == 32)
        let copy = try P256PrivateKey(rawScalar: key.rawScalar)
        #expect(copy.rawScalar == key.rawScalar)
        #expect(copy.publicKey == key.publicKey)
        let signature = try copy.signature(for: [1, 2, 3])
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3]))
    }

    @Test("Small scalars are left-padded; 1 gives the generator")
    func smallScalar() throws {
        let one = try P256PrivateKey(rawScalar: [UInt8](repeating: 0, count: 31) + [1])
        #expect(one.rawScalar == [UInt8](repeating: 0, count: 31) + [1])
        #expect(one.publicKey.x == Hex.bytes("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"))
        #expect(one.publicKey.y == Hex.bytes("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"))
        let largest = Self.order.dropLast() + [Self.order.last! - 1]
        #expect(try P256PrivateKey(rawScalar: Array(largest)).rawScalar == Array(largest))
    }

    @Test("Invalid scalars throw: zero, n, above n, 31 and 33 bytes")
    func invalidScalars() {
        let invalid: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32),
            Self.order,
            Self.order.dropLast() + [Self.order.last! + 1],
            [UInt8](repeating: 0xFF, count: 32),
            [UInt8](repeating: 1, count: 31),
            [UInt8](repeating: 1, count: 33),
            [],
        ]
        for scalar in invalid {
            let reason = scalar.count == 32 ? "scalar must be in 1..<n" : "scalar must be 32 bytes, got \(scalar.count)"
            #expect(throws: CryptoError(function: "P256PrivateKey", reason: reason)) { try P256PrivateKey(rawScalar: scalar) }
        }
    }

    @Test("Points off the curve, with coordinates >= p, or badly encoded throw")
    func invalidPoints() {
        var badY = Self.giY
        badY[31] ^= 1
        expectOpenSSLFailure("EVP_PKEY_fromdata", code: OpenSSLCode.pointNotOnCurve) { _ = try P256PublicKey(x: Self.giX, y: badY) }
        expectOpenSSLFailure("EVP_PKEY_fromdata", code: OpenSSLCode.invalidEncoding) { _ = try P256PublicKey(x: Self.prime, y: Self.giY) }
        expectOpenSSLFailure("EVP_PKEY_fromdata", code: OpenSSLCode.pointNotOnCurve) {
            _ = try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError(function: "P256PublicKey", reason: "coordinates must be 32 bytes each, got 31 and 32")) {
            try P256PublicKey(x: Array(Self.giX.prefix(31)), y: Self.giY)
        }
        #expect(throws: CryptoError(function: "P256PublicKey", reason: "expected a 65-byte uncompressed point (04 || x || y)")) { try P256PublicKey(x962: [0x03] + Self.giX + Self.giY) }
        #expect(throws: CryptoError(function: "P256PublicKey", reason: "expected a 65-byte uncompressed point (04 || x || y)")) { try P256PublicKey(x962: [0x02] + Self.giX) }
        expectOpenSSLFailure("EVP_PKEY_fromdata", code: OpenSSLCode.pointNotOnCurve) { _ = try P256PublicKey(x962: [0x04] + Self.giX + badY) }
        #expect(throws: CryptoError(function: "P256PublicKey", reason: "expected a 65-byte uncompressed point (04 || x || y)")) { try P256PublicKey(x962: []) }
    }

    @Test("x962, x/y and SubjectPublicKeyInfo round trips")
    func publicKeyEncodings() throws {
        let key = try P256PrivateKey().publicKey
        #expect(key.x962.count == 65)
        #expect(key.x962 == [0x04] + key.x + key.y)
        #expect(try P256PublicKey(x962: key.x962) == key)
        #expect(try P256PublicKey(x: key.x, y: key.y) == key)

        let spki = key.derSubjectPublicKeyInfo
        // RFC 5480: SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04||x||y }.
        #expect(spki == Hex.bytes("3059301306072a8648ce3d020106082a8648ce3d030107034200") + key.x962)
        #expect(try P256PublicKey(derSubjectPublicKeyInfo: spki) == key)
        #expect(throws: CryptoError(function: "d2i_PUBKEY", reason: "trailing bytes after SubjectPublicKeyInfo")) { try P256PublicKey(derSubjectPublicKeyInfo: spki + [0]) }
        expectOpenSSLFailure("d2i_PUBKEY", code: OpenSSLCode.asn1TooLong) { _ = try P256PublicKey(derSubjectPublicKeyInfo: Array(spki.dropLast())) }
        #expect(throws: CryptoError(function: "d2i_PUBKEY", reason: "empty input")) { try P256PublicKey(derSubjectPublicKeyInfo: []) }
        var set = Set([key])
        set.insert(try P256PublicKey(x962: key.x962))
        #expect(set.count == 1)
    }

    @Test("ECDH is symmetric: a·B == b·A")
    func ecdhSymmetric() throws {
        let a = try P256PrivateKey()
        let b = try P256PrivateKey()
        let ab = try a.sharedSecret(with: b.publicKey)
        #expect(ab.count == 32)
        #expect(ab == (try b.sharedSecret(with: a.publicKey)))
        #expect(ab != (try a.sharedSecret(with: try P256PrivateKey().publicKey)))
    }

    @Test("ECDH known answer: RFC 5903 §8.1")
    func ecdhKnownAnswer() throws {
        let initiator = try P256PrivateKey(rawScalar: Self.i)
        let responder = try P256PrivateKey(rawScalar: Self.r)
        #expect(initiator.publicKey.x == Self.giX)
        #expect(initiator.publicKey.y == Self.giY)
        #expect(responder.publicKey == (try P256PublicKey(x: Self.grX, y: Self.grY)))
        #expect(try initiator.sharedSecret(with: P256PublicKey(x: Self.grX, y: Self.grY)) == Self.girX)
        #expect(try responder.sharedSecret(with: P256PublicKey(x: Self.giX, y: Self.giY)) == Self.girX)
    }

    @Test("PKCS#8 PEM round trip")
    func pemRoundTrip() throws {
        let key = try P256PrivateKey()
        let pem = key.pemPKCS8
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let parsed = try P256PrivateKey(pemPKCS8: pem)
        #expect(parsed.rawScalar == key.rawScalar)
        #expect(parsed.publicKey == key.publicKey)
        #expect(parsed.pemPKCS8 == pem)
    }

    @Test("SEC 1 \"EC PRIVATE KEY\" PEM is accepted; garbage PEM throws")
    func sec1PEM() throws {
        // RFC 5903 scalar i, written by `openssl ec` in the traditional SEC 1 format.
        let pem = """
            -----BEGIN EC PRIVATE KEY-----
            MHcCAQEEIMiPAfUQ2aw/cKKS2qIxbeVE6aq4r+hAScYqnFeGLRQzoAoGCCqGSM49
            AwEHoUQDQgAE2tC2U5QiHPmwUeH+yleH0Jjf5jf8kLnvlF0MN3JYEYBScaBGHNuC
            UtYfHEVvo+WasfRbM6zPX1g4ngV3uJkLsw==
            -----END EC PRIVATE KEY-----
            """
        let key = try P256PrivateKey(pemPKCS8: pem)
        #expect(key.rawScalar == Self.i)
        #expect(key.publicKey.x == Self.giX)
        #expect(throws: CryptoError(function: "PEM_read_bio_PrivateKey", reason: "empty input")) { try P256PrivateKey(pemPKCS8: "") }
        expectOpenSSLFailure("PEM_read_bio_PrivateKey", code: OpenSSLCode.decoderUnsupported) {
            _ = try P256PrivateKey(pemPKCS8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    @Test("Keys are Sendable and usable from many tasks at once")
    func concurrentUse() async throws {
        let key = try P256PrivateKey()
        let publicKey = key.publicKey
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let message = [UInt8(index)]
                    let signature = try key.signature(for: message)
                    return publicKey.isValidSignature(signature, for: message)
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0 })
    }

    @Test("isValidScalar agrees with the import: 0, n and above, wrong lengths refused; 1 … n−1 accepted")
    func scalarValidityAgreesWithImport() {
        var nMinusOne = Self.order
        nMinusOne[31] -= 1
        var nPlusOne = Self.order
        nPlusOne[31] += 1
        var topByteOnly = [UInt8](repeating: 0, count: 32)
        topByteOnly[0] = 0xFF
        var cases: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 31) + [1], nMinusOne, Self.order, nPlusOne,
            [UInt8](repeating: 0xFF, count: 32), topByteOnly, Self.prime, Self.i, Self.r,
            [UInt8](repeating: 1, count: 31), [UInt8](repeating: 1, count: 33), [],
        ]
        cases += (0..<64).map { _ in SecureRandom.bytes(32) }
        // Just below and above n in a middle byte too.
        var middle = Self.order
        middle[16] -= 1
        cases.append(middle)
        middle[16] += 2
        cases.append(middle)
        for scalar in cases {
            let imports = (try? P256PrivateKey(rawScalar: scalar)) != nil
            #expect(P256PrivateKey.isValidScalar(scalar) == imports, "\(scalar.count) bytes \(scalar.prefix(4))…")
        }
        #expect(!P256PrivateKey.isValidScalar(Self.order))
        #expect(P256PrivateKey.isValidScalar(nMinusOne))
        #expect(!P256PrivateKey.isValidScalar([UInt8](repeating: 0, count: 32)))
    }
}
