import CardCrypto
import Testing

@Suite("AES-256-CBC without padding")
struct AES256CBCTests {
    // NIST SP 800-38A, F.2.5 (CBC-AES256.Encrypt) and F.2.6 (Decrypt).
    let key = Hex.bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    let iv = Hex.bytes("000102030405060708090a0b0c0d0e0f")
    let plaintext = Hex.bytes(
        """
        6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
        30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
        """)
    let ciphertext = Hex.bytes(
        """
        f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
        39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b
        """)

    @Test("SP 800-38A F.2.5 encrypt")
    func encrypt() throws {
        #expect(try AES256CBC.encrypt(key: key, iv: iv, plaintext: plaintext) == ciphertext)
    }

    @Test("SP 800-38A F.2.6 decrypt")
    func decrypt() throws {
        #expect(try AES256CBC.decrypt(key: key, iv: iv, ciphertext: ciphertext) == plaintext)
    }

    @Test("Single block and empty input")
    func shortInputs() throws {
        #expect(try AES256CBC.encrypt(key: key, iv: iv, plaintext: Array(plaintext[..<16])) == Array(ciphertext[..<16]))
        #expect(try AES256CBC.encrypt(key: key, iv: iv, plaintext: []) == [])
        #expect(try AES256CBC.decrypt(key: key, iv: iv, ciphertext: []) == [])
    }

    @Test("Wrong key, IV or data lengths throw with function \"AES256CBC\"")
    func wrongLengths() {
        let cases: [(key: [UInt8], iv: [UInt8], data: [UInt8], reason: String)] = [
            (Array(key.prefix(31)), iv, plaintext, "key must be 32 bytes, got 31"),
            (Array(key.prefix(16)), iv, plaintext, "key must be 32 bytes, got 16"),
            (key, Array(iv.prefix(15)), plaintext, "iv must be 16 bytes, got 15"),
            (key, iv + [0], plaintext, "iv must be 16 bytes, got 17"),
            (key, iv, Array(plaintext.prefix(15)), "data length 15 is not a multiple of 16 (padding is disabled)"),
            (key, iv, plaintext + [0], "data length \(plaintext.count + 1) is not a multiple of 16 (padding is disabled)"),
        ]
        for testCase in cases {
            let expected = CryptoError(function: "AES256CBC", reason: testCase.reason)
            #expect(throws: expected) { try AES256CBC.encrypt(key: testCase.key, iv: testCase.iv, plaintext: testCase.data) }
            #expect(throws: expected) { try AES256CBC.decrypt(key: testCase.key, iv: testCase.iv, ciphertext: testCase.data) }
        }
    }
}
