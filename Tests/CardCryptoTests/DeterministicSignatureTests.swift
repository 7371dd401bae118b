import Testing
@testable import CardCrypto

/// RFC 6979 Appendix A.2.5 (ECDSA, 256 bits, prime field), SHA-256 rows.
@Suite struct DeterministicSignatureTests {
    static let privateKey = "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721"

    struct Vector: Sendable, CustomStringConvertible {
        let message: String
        let k: String
        let r: String
        let s: String
        var description: String { message }
    }

    static let vectors = [
        Vector(message: "sample",
               k: "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
               r: "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
               s: "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"),
        Vector(message: "test",
               k: "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0",
               r: "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
               s: "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"),
    ]

    @Test(arguments: vectors)
    func nonceMatchesRFC6979(_ vector: Vector) throws {
        let key = try P256PrivateKey(rawScalar: Hex.bytes(Self.privateKey))
        let digest = SHA256.hash(Array(vector.message.utf8))
        let order = Hex.bytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        var nonces = RFC6979Nonces(privateKey: key.rawScalar, reducedHash: digest, order: order)
        #expect(nonces.next() == Hex.bytes(vector.k))
    }

    @Test(arguments: vectors)
    func signatureMatchesRFC6979(_ vector: Vector) throws {
        let key = try P256PrivateKey(rawScalar: Hex.bytes(Self.privateKey))
        let signature = try key.deterministicSignature(for: Array(vector.message.utf8))
        #expect(signature == DERSignature.encode(r: Hex.bytes(vector.r), s: Hex.bytes(vector.s)))
        #expect(key.publicKey.isValidSignature(signature, for: Array(vector.message.utf8)))
    }

    @Test func sameInputSameSignatureAndStillValid() throws {
        let key = try P256PrivateKey()
        let message = Array("authenticator data || client data hash".utf8)
        let first = try key.deterministicSignature(for: message)
        #expect(first == (try key.deterministicSignature(for: message)))
        #expect(first != (try key.deterministicSignature(for: message + [0])))
        #expect(key.publicKey.isValidSignature(first, for: message))
    }

    @Test func derEncodingAddsSignBytesAndStripsLeadingZeros() {
        let high = [UInt8](repeating: 0x80, count: 32)
        let low = [UInt8](repeating: 0x00, count: 31) + [0x05]
        #expect(DERSignature.encode(r: high, s: low) == [0x30, 0x26, 0x02, 0x21, 0x00] + high + [0x02, 0x01, 0x05])
    }
}
