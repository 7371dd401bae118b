import Testing
@testable import CardCrypto

/// RFC 6979 deterministic ECDSA: Appendix A.2.5 (P-256, SHA-256 rows, kept inline as before) and
/// A.2.6 / A.2.7 (P-384 and P-521 with SHA-256, SHA-384 and SHA-512, from Vectors/rfc6979-ecdsa.json),
/// plus the §2.3 conversions and the DER encoding they rely on.
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
        var nonces = RFC6979Nonces(digest: .sha256, privateKey: key.rawScalar, reducedHash: digest, order: order, orderBitCount: 256)
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

    @Test("DER: a P-521-sized signature takes the long-form SEQUENCE length")
    func derLongForm() {
        let r = [UInt8](repeating: 0x01, count: 66)
        let s = [UInt8](repeating: 0xFF, count: 66)
        // r: 02 42 + 66 bytes; s: 02 43 00 + 66 bytes; body 68 + 69 = 137 = 0x89.
        #expect(DERSignature.encode(r: r, s: s) == [0x30, 0x81, 0x89, 0x02, 0x42] + r + [0x02, 0x43, 0x00] + s)
        #expect(DER.length(127) == [0x7F])
        #expect(DER.length(128) == [0x81, 0x80])
        #expect(DER.length(1190) == [0x82, 0x04, 0xA6])
    }

    @Test("DER reader: minimal lengths and non-negative minimal INTEGERs only")
    func derReader() {
        func integer(_ bytes: [UInt8]) -> [UInt8]? {
            var reader = DER.Reader(bytes)
            return reader.unsignedInteger()
        }
        #expect(integer([0x02, 0x01, 0x05]) == [0x05])
        #expect(integer([0x02, 0x02, 0x00, 0x80]) == [0x80])
        #expect(integer([0x02, 0x01, 0x00]) == [0x00])
        #expect(integer([0x02, 0x02, 0x00, 0x05]) == nil, "non-minimal")
        #expect(integer([0x02, 0x01, 0x80]) == nil, "negative")
        #expect(integer([0x02, 0x81, 0x01, 0x05]) == nil, "long form for a short length")
        #expect(integer([0x02, 0x80, 0x05, 0x00, 0x00]) == nil, "indefinite length")
        #expect(integer([0x02, 0x02, 0x05]) == nil, "truncated")
        #expect(integer([0x02, 0x00]) == nil, "empty INTEGER")
        #expect(integer([0x04, 0x01, 0x05]) == nil, "wrong tag")
    }

    @Test("bits2int keeps the leftmost qlen bits; bits2octets reduces mod n once")
    func conversions() {
        // 1024 bits of ones → 521 ones: 01 FF…FF (66 bytes).
        #expect(RFC6979.bits2int([UInt8](repeating: 0xFF, count: 128), orderBitCount: 521)
            == [0x01] + [UInt8](repeating: 0xFF, count: 65))
        // 1 followed by zeros → 2^520.
        #expect(RFC6979.bits2int([0x80] + [UInt8](repeating: 0, count: 127), orderBitCount: 521)
            == [0x01] + [UInt8](repeating: 0, count: 65))
        // A 512-bit hash is shorter than qlen: kept whole, left-padded.
        let hash = [UInt8](repeating: 0xAB, count: 64)
        #expect(RFC6979.bits2int(hash, orderBitCount: 521) == [0, 0] + hash)
        // SHA-512 on P-384: the first 48 bytes.
        #expect(RFC6979.bits2int(Array(0..<64), orderBitCount: 384) == Array(0..<48))
        let order = Hex.bytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        let orderPlusFive = Hex.bytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632556")
        #expect(RFC6979.bits2octets(orderPlusFive, order: order, orderBitCount: 256) == [UInt8](repeating: 0, count: 31) + [5])
        #expect(RFC6979.bits2octets(order, order: order, orderBitCount: 256) == [UInt8](repeating: 0, count: 32))
        #expect(RFC6979.bits2octets([1, 2, 3], order: order, orderBitCount: 256) == [UInt8](repeating: 0, count: 29) + [1, 2, 3])
    }

    // MARK: - A.2.6 and A.2.7

    struct RFC6979File: Decodable {
        struct Key: Decodable {
            let curve: String
            let x: String
            let ux: String
            let uy: String
            let signatures: [Row]
        }
        struct Row: Decodable {
            let message: String
            let hash: String
            let r: String
            let s: String
        }
        let keys: [Key]
    }

    struct RFC6979Case: Sendable, CustomStringConvertible {
        let algorithm: SignatureAlgorithm
        let x: String, ux: String, uy: String
        let message: String, hash: String, r: String, s: String
        var description: String { "\(algorithm) \(hash) \"\(message)\"" }
    }

    static let rfc6979Cases: [RFC6979Case] = {
        guard let file = try? VectorFile.load("rfc6979-ecdsa.json", as: RFC6979File.self) else { return [] }
        return file.keys.flatMap { key in
            key.signatures.map { row in
                RFC6979Case(algorithm: key.curve == "P-384" ? .es384 : .es512, x: key.x, ux: key.ux, uy: key.uy,
                            message: row.message, hash: row.hash, r: row.r, s: row.s)
            }
        }
    }()

    @Test("the A.2.6 / A.2.7 vector file loads: 2 keys × 2 messages × 3 hashes")
    func rfc6979FileLoads() {
        #expect(Self.rfc6979Cases.count == 12)
    }

    @Test("RFC 6979 A.2.6 / A.2.7: deterministic (r, s) for every hash (bits2int truncation and padding)", arguments: rfc6979Cases)
    func curvesAndHashes(_ vector: RFC6979Case) throws {
        let curve: ECCurve = vector.algorithm == .es384 ? .p384 : .p521
        let digest: DigestAlgorithm = switch vector.hash {
        case "SHA-256": .sha256
        case "SHA-384": .sha384
        default: .sha512
        }
        let message = Array(vector.message.utf8)
        let signature = try DeterministicECDSA.signature(
            digest: digest.hash(message), scalar: Hex.bytes(vector.x), curve: curve, nonceDigest: digest)
        #expect(signature == DERSignature.encode(r: Hex.bytes(vector.r), s: Hex.bytes(vector.s)))
    }
}
