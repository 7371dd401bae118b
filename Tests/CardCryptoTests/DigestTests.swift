import Testing
@testable import CardCrypto

@Suite("SHA-2, HMAC and HKDF-SHA-256 published vectors")
struct DigestTests {
    @Test("SHA-256 of \"abc\" (FIPS 180-2 B.1)")
    func sha256ABC() {
        #expect(
            SHA256.hash(Array("abc".utf8))
                == Hex.bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test("SHA-256 of the empty string")
    func sha256Empty() {
        #expect(SHA256.hash([]) == Hex.bytes("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test("SHA-256 over parts equals SHA-256 over their concatenation")
    func sha256Parts() {
        let parts: [[UInt8]] = [Array("a".utf8), [], Array("bc".utf8)]
        #expect(SHA256.hash(parts) == SHA256.hash(Array("abc".utf8)))
        #expect(SHA256.hash([[UInt8]]()) == SHA256.hash([]))
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hash([Array(long[..<333]), Array(long[333...])]) == SHA256.hash(long))
    }

    @Test("SHA-384 and SHA-512 of \"abc\" (FIPS 180-2 D.1, C.1) and of the empty string")
    func sha384And512() {
        #expect(SHA384.hash(Array("abc".utf8)) == Hex.bytes(
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        #expect(SHA512.hash(Array("abc".utf8)) == Hex.bytes(
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"))
        #expect(SHA384.hash([]) == Hex.bytes(
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"))
        #expect(SHA512.hash([]) == Hex.bytes(
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"))
        #expect(SHA384.byteCount == 48 && SHA512.byteCount == 64)
    }

    @Test("HMAC-SHA-384 and HMAC-SHA-512 RFC 4231 test case 1; parts are MACed as their concatenation")
    func hmac384And512() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(DigestAlgorithm.sha384.authenticate(key: key, parts: [Array("Hi ".utf8), [], Array("There".utf8)]) == Hex.bytes(
            "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6"))
        #expect(DigestAlgorithm.sha512.authenticate(key: key, parts: [Array("Hi There".utf8)]) == Hex.bytes(
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"))
        #expect(DigestAlgorithm.sha256.authenticate(key: key, parts: [Array("Hi There".utf8)])
            == HMACSHA256.authenticate(key: key, data: Array("Hi There".utf8)))
    }

    @Test("HMAC-SHA-256 RFC 4231 test case 1")
    func hmacCase1() {
        let mac = HMACSHA256.authenticate(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8))
        #expect(mac == Hex.bytes("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
    }

    @Test("HMAC-SHA-256 RFC 4231 test case 2")
    func hmacCase2() {
        let mac = HMACSHA256.authenticate(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(mac == Hex.bytes("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }

    @Test("HMAC-SHA-256 with empty key and empty data")
    func hmacEmpty() {
        #expect(
            HMACSHA256.authenticate(key: [], data: [])
                == Hex.bytes("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test("HKDF-SHA-256 RFC 5869 test case 1")
    func hkdfCase1() {
        let okm = HKDFSHA256.deriveKey(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22),
            salt: Hex.bytes("000102030405060708090a0b0c"),
            info: Hex.bytes("f0f1f2f3f4f5f6f7f8f9"),
            outputByteCount: 42)
        #expect(
            okm == Hex.bytes("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    @Test("HKDF-SHA-256 RFC 5869 test case 3 (empty salt and info)")
    func hkdfCase3() {
        let okm = HKDFSHA256.deriveKey(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], outputByteCount: 42)
        #expect(
            okm == Hex.bytes("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    @Test("HKDF-SHA-256 agrees with HMAC-based extract-and-expand, including empty input key material")
    func hkdfMatchesHMAC() {
        for ikm in [[UInt8](), Array("secret".utf8)] {
            let salt = Array("salt".utf8)
            let info = Array("CTAP2 HMAC key".utf8)
            let prk = HMACSHA256.authenticate(key: salt, data: ikm)
            let t1 = HMACSHA256.authenticate(key: prk, data: info + [1])
            let t2 = HMACSHA256.authenticate(key: prk, data: t1 + info + [2])
            let okm = HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: 40)
            #expect(okm == Array((t1 + t2).prefix(40)))
        }
        #expect(HKDFSHA256.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 0).isEmpty)
    }

    @Test("SecureRandom returns the requested number of bytes, differing between calls")
    func secureRandom() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
    }
}
