import CardCrypto
import Foundation
import Testing

/// Every importer rejects bad input with the documented error, and never crashes: wrong lengths,
/// out-of-range scalars, inconsistent RSA keys, keys of the wrong algorithm, unsupported key
/// types, and every truncation of a PKCS #8 or SubjectPublicKeyInfo encoding.
@Suite("Credential key import errors")
struct CredentialKeyImportTests {
    static let algorithms = SignatureAlgorithm.allCases
    static let ecAlgorithms: [SignatureAlgorithm] = [.es256, .es384, .es512, .es256k]

    static func privateKeyError(_ reason: String) -> CryptoError {
        CryptoError(function: "CredentialPrivateKey", reason: reason)
    }

    static func publicKeyError(_ reason: String) -> CryptoError {
        CryptoError(function: "CredentialPublicKey", reason: reason)
    }

    /// Expects an error from OpenSSL (a nonzero code) reported by one of `functions`.
    static func expectOpenSSLError(from functions: Set<String>, sourceLocation: SourceLocation = #_sourceLocation,
                                   _ body: () throws -> Void) {
        let error = #expect(throws: CryptoError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error.map { functions.contains($0.function) } == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error.map { $0.openSSLCode != 0 } == true, sourceLocation: sourceLocation)
    }

    // MARK: - privateKeyBytes

    @Test("EC scalars of the wrong length", arguments: ecAlgorithms)
    func ecWrongLength(_ algorithm: SignatureAlgorithm) {
        let length = algorithm.curve?.coordinateByteCount ?? 0
        for count in [0, 1, length - 1, length + 1, 2 * length] {
            #expect(throws: Self.privateKeyError("\(algorithm.name) private key must be \(length) bytes, got \(count)")) {
                try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: [UInt8](repeating: 1, count: count))
            }
        }
    }

    /// The group orders, as `openssl ecparam -param_enc explicit -text` prints them.
    static let orders: [SignatureAlgorithm: String] = [
        .es256: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        .es384: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
        .es512: "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
        .es256k: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
    ]

    @Test("EC scalars out of range: 0, n, n + 1, all ones; n - 1 and 1 are fine", arguments: ecAlgorithms)
    func ecOutOfRange(_ algorithm: SignatureAlgorithm) throws {
        let order = Hex.bytes(Self.orders[algorithm] ?? "")
        let length = order.count
        var orderPlusOne = order
        orderPlusOne[length - 1] += 1
        var orderMinusOne = order
        orderMinusOne[length - 1] -= 1
        for scalar in [[UInt8](repeating: 0, count: length), order, orderPlusOne, [UInt8](repeating: 0xFF, count: length)] {
            #expect(throws: Self.privateKeyError("\(algorithm.name) private scalar must be in 1..<n")) {
                try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: scalar)
            }
        }
        #expect(try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: orderMinusOne).privateKeyBytes == orderMinusOne)
        let one = [UInt8](repeating: 0, count: length - 1) + [1]
        #expect(try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: one).privateKeyBytes == one)
    }

    @Test("Ed25519 seeds of the wrong length")
    func ed25519WrongLength() {
        for count in [0, 31, 33, 64] {
            #expect(throws: Self.privateKeyError("EdDSA private key must be 32 bytes, got \(count)")) {
                try CredentialPrivateKey(algorithm: .edDSA, privateKeyBytes: [UInt8](repeating: 7, count: count))
            }
        }
    }

    @Test("RSA private bytes that are not a strict two-prime RSAPrivateKey", arguments: [SignatureAlgorithm.rs256, .ps256])
    func rsaNotPKCS1(_ algorithm: SignatureAlgorithm) throws {
        let valid = try TestKeys.key(algorithm).privateKeyBytes
        let pkcs8 = try TestKeys.key(algorithm).pkcs8DER
        var version1 = valid
        version1[6] = 0x01  // 30 82 LL LL 02 01 <version>
        var nonMinimal = valid
        nonMinimal[3] += 1  // outer length one longer, then n gets a redundant leading zero
        nonMinimal.insert(0x00, at: 11)
        nonMinimal[10] += 1  // 02 82 01 01 00 | n
        let garbage: [[UInt8]] = [[], [0x30], [0x30, 0x00], Array(valid.dropLast()), valid + [0x00], pkcs8, version1,
                                  nonMinimal, [UInt8](repeating: 0x30, count: 1200), Array(valid.prefix(4))]
        for bytes in garbage {
            #expect(throws: Self.privateKeyError("\(algorithm.name) private key is not a two-prime DER RSAPrivateKey")) {
                try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: bytes)
            }
        }
    }

    /// The eight fields of a strict RSAPrivateKey (tests re-encode keys with one field changed).
    static func rsaFields(_ der: [UInt8]) -> [[UInt8]] {
        var fields: [[UInt8]] = []
        var offset = 4  // 30 82 LL LL
        while offset < der.count {
            var length = Int(der[offset + 1])
            var header = 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                length = der[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
                header += count
            }
            fields.append(Array(der[(offset + header)..<(offset + header + length)]))
            offset += header + length
        }
        return Array(fields.dropFirst())  // the version
    }

    static func rsaEncode(_ fields: [[UInt8]]) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
        func integer(_ magnitude: [UInt8]) -> [UInt8] {
            var value = Array(magnitude.drop { $0 == 0 })
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02] + length(value.count) + value
        }
        let body = [0x02, 0x01, 0x00] + fields.flatMap(integer)
        return [0x30] + length(body.count) + body
    }

    @Test("RSA keys with inconsistent components")
    func rsaInconsistent() throws {
        let valid = try TestKeys.key(.rs256).privateKeyBytes
        let fields = Self.rsaFields(valid)
        #expect(fields.count == 8)
        #expect(Self.rsaEncode(fields) == valid, "the test's own re-encoding is exact")
        func bumped(_ index: Int) -> [UInt8] {
            var changed = fields
            var value = changed[index]
            value[value.count - 1] ^= 0x02
            changed[index] = value
            return Self.rsaEncode(changed)
        }
        var swapped = fields
        swapped.swapAt(3, 4)  // p and q exchanged: qInverse no longer inverts q mod p
        // n (index 0) ± 2 stays odd with the same size; d, p, q, dp, dq, qInverse each broken once.
        for bytes in [bumped(0), bumped(2), bumped(3), bumped(4), bumped(5), bumped(6), bumped(7), Self.rsaEncode(swapped)] {
            #expect(throws: Self.privateKeyError("RS256 private key components are inconsistent")) {
                try CredentialPrivateKey(algorithm: .rs256, privateKeyBytes: bytes)
            }
        }
        var badExponent = fields
        for e in [[0x01, 0x00, 0x00], [0x01], [], fields[0] + [0x01]] as [[UInt8]] {
            badExponent[1] = e
            #expect(throws: Self.privateKeyError("RS256 public exponent must be odd, at least 3 and below n")) {
                try CredentialPrivateKey(algorithm: .rs256, privateKeyBytes: Self.rsaEncode(badExponent))
            }
        }
    }

    @Test("RSA keys of the wrong size: a 1024-bit key made by openssl")
    func rsaWrongSize() throws {
        let der = Hex.bytes(try CredentialKeyVectorTests.openSSLFixtures().rsa1024PKCS1.der)
        #expect(throws: Self.privateKeyError("PS256 modulus must be 2048 to 4096 bits, got 1024")) {
            try CredentialPrivateKey(algorithm: .ps256, privateKeyBytes: der)
        }
    }

    // MARK: - PKCS #8

    @Test("every prefix of a PKCS #8 encoding fails in the DER decoder", arguments: algorithms)
    func pkcs8Prefixes(_ algorithm: SignatureAlgorithm) throws {
        let der = try TestKeys.key(algorithm).pkcs8DER
        #expect(throws: CryptoError(function: "d2i_PKCS8_PRIV_KEY_INFO", reason: "empty input")) {
            try CredentialPrivateKey(pkcs8DER: [])
        }
        for count in 1..<der.count {
            Self.expectOpenSSLError(from: ["d2i_PKCS8_PRIV_KEY_INFO"]) {
                _ = try CredentialPrivateKey(pkcs8DER: Array(der.prefix(count)), algorithm: algorithm)
            }
        }
        #expect(throws: CryptoError(function: "d2i_PKCS8_PRIV_KEY_INFO", reason: "trailing bytes after PrivateKeyInfo")) {
            try CredentialPrivateKey(pkcs8DER: der + [0x00])
        }
    }

    @Test("a PKCS #8 key of one algorithm cannot be imported as another", arguments: algorithms)
    func pkcs8WrongAlgorithm(_ algorithm: SignatureAlgorithm) throws {
        let der = try TestKeys.key(algorithm).pkcs8DER
        let kind = switch algorithm {
        case .es256: "EC P-256"
        case .es384: "EC P-384"
        case .es512: "EC P-521"
        case .es256k: "EC secp256k1"
        case .edDSA: "Ed25519"
        case .rs256, .ps256: "RSA"
        }
        let compatible: Set<SignatureAlgorithm> = algorithm == .rs256 || algorithm == .ps256 ? [.rs256, .ps256] : [algorithm]
        for other in Self.algorithms where !compatible.contains(other) {
            #expect(throws: Self.privateKeyError("\(kind) key cannot be used for \(other.name)")) {
                try CredentialPrivateKey(pkcs8DER: der, algorithm: other)
            }
            let spki = try TestKeys.key(algorithm).publicKey.derSubjectPublicKeyInfo
            #expect(throws: Self.publicKeyError("\(kind) key cannot be used for \(other.name)")) {
                try CredentialPublicKey(derSubjectPublicKeyInfo: spki, algorithm: other)
            }
        }
    }

    @Test("unsupported keys made by openssl: X25519, P-224, three-prime RSA")
    func pkcs8Unsupported() throws {
        let fixtures = try CredentialKeyVectorTests.openSSLFixtures()
        #expect(throws: Self.privateKeyError("unsupported key type X25519")) {
            try CredentialPrivateKey(pkcs8DER: Hex.bytes(fixtures.x25519PKCS8.der))
        }
        #expect(throws: Self.publicKeyError("unsupported key type X25519")) {
            try CredentialPublicKey(derSubjectPublicKeyInfo: Hex.bytes(fixtures.x25519SPKI.der))
        }
        #expect(throws: Self.privateKeyError("unsupported EC curve secp224r1")) {
            try CredentialPrivateKey(pkcs8DER: Hex.bytes(fixtures.p224PKCS8.der))
        }
        #expect(throws: Self.publicKeyError("unsupported EC curve secp224r1")) {
            try CredentialPublicKey(derSubjectPublicKeyInfo: Hex.bytes(fixtures.p224SPKI.der))
        }
        #expect(throws: Self.privateKeyError("RSA key is not a two-prime private key")) {
            try CredentialPrivateKey(pkcs8DER: Hex.bytes(fixtures.rsa3PrimePKCS8.der))
        }
    }

    @Test("an id-RSASSA-PSS PKCS #8 key (openssl genpkey -algorithm RSA-PSS) is PS256 and only PS256")
    func pkcs8RSAPSS() throws {
        let pem = try CredentialKeyVectorTests.openSSLFixtures().rsaPSSPKCS8PEM.pem
        let key = try CredentialPrivateKey(pemPKCS8: pem)
        #expect(key.algorithm == .ps256)
        let message = Array("PS256".utf8)
        #expect(key.publicKey.isValidSignature(try key.signature(for: message), for: message))
        #expect(throws: Self.privateKeyError("RSA-PSS key cannot be used for RS256")) {
            try CredentialPrivateKey(pemPKCS8: pem, algorithm: .rs256)
        }
        // Stored and exported as plain RSA, like every PS256 key.
        #expect(try CredentialPrivateKey(pkcs8DER: key.pkcs8DER).algorithm == .rs256)
    }

    @Test("PEM that is not an unencrypted PKCS #8 block")
    func pemErrors() throws {
        let fixtures = try CredentialKeyVectorTests.openSSLFixtures()
        #expect(throws: CryptoError(function: "PEM_read_bio", reason: "expected a \"PRIVATE KEY\" PEM block, found \"ENCRYPTED PRIVATE KEY\"")) {
            try CredentialPrivateKey(pemPKCS8: fixtures.p256EncryptedPEM.pem)
        }
        #expect(throws: CryptoError(function: "PEM_read_bio", reason: "expected a \"PRIVATE KEY\" PEM block, found \"EC PRIVATE KEY\"")) {
            try CredentialPrivateKey(pemPKCS8: fixtures.p256SEC1PEM.pem)
        }
        let publicPEM = try TestKeys.key(.es384).publicKey.pem
        #expect(throws: CryptoError(function: "PEM_read_bio", reason: "expected a \"PRIVATE KEY\" PEM block, found \"PUBLIC KEY\"")) {
            try CredentialPrivateKey(pemPKCS8: publicPEM)
        }
        #expect(throws: CryptoError(function: "PEM_read_bio", reason: "expected a \"PUBLIC KEY\" PEM block, found \"PRIVATE KEY\"")) {
            try CredentialPublicKey(pem: try TestKeys.key(.es384).pemPKCS8)
        }
        #expect(throws: CryptoError(function: "PEM_read_bio", reason: "empty input")) {
            try CredentialPrivateKey(pemPKCS8: "")
        }
        Self.expectOpenSSLError(from: ["PEM_read_bio"]) { _ = try CredentialPrivateKey(pemPKCS8: "not PEM at all") }
        Self.expectOpenSSLError(from: ["d2i_PKCS8_PRIV_KEY_INFO"]) {
            _ = try CredentialPrivateKey(pemPKCS8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    @Test("an EC PKCS #8 key whose embedded public key belongs to another scalar")
    func pkcs8MismatchedPublicKey() throws {
        let key = try TestKeys.key(.es384)
        let other = try CredentialPrivateKey(algorithm: .es384, randomBytes: SeededStream("mismatch").bytes)
        guard case .ec2(_, let x, let y) = key.publicKey.coseKey, case .ec2(_, let otherX, let otherY) = other.publicKey.coseKey else {
            Issue.record("not EC2 keys")
            return
        }
        let point = [0x04] + x + y
        var der = key.pkcs8DER
        let start = try #require(der.indices.first { Array(der[$0..<min($0 + point.count, der.count)]) == point })
        der.replaceSubrange(start..<(start + point.count), with: [0x04] + otherX + otherY)
        #expect(throws: Self.privateKeyError("embedded public key does not match the private key")) {
            try CredentialPrivateKey(pkcs8DER: der)
        }
    }

    // MARK: - SubjectPublicKeyInfo and COSE

    @Test("every prefix of a SubjectPublicKeyInfo fails in the DER decoder", arguments: algorithms)
    func spkiPrefixes(_ algorithm: SignatureAlgorithm) throws {
        let der = try TestKeys.key(algorithm).publicKey.derSubjectPublicKeyInfo
        #expect(throws: CryptoError(function: "d2i_PUBKEY", reason: "empty input")) {
            try CredentialPublicKey(derSubjectPublicKeyInfo: [])
        }
        for count in 1..<der.count {
            Self.expectOpenSSLError(from: ["d2i_PUBKEY"]) {
                _ = try CredentialPublicKey(derSubjectPublicKeyInfo: Array(der.prefix(count)), algorithm: algorithm)
            }
        }
        #expect(throws: CryptoError(function: "d2i_PUBKEY", reason: "trailing bytes after SubjectPublicKeyInfo")) {
            try CredentialPublicKey(derSubjectPublicKeyInfo: der + [0x00])
        }
    }

    @Test("COSE parameters of the wrong key type or curve")
    func coseWrongType() throws {
        let p256 = try TestKeys.key(.es256).publicKey.coseKey
        let ed = try TestKeys.key(.edDSA).publicKey.coseKey
        let rsa = try TestKeys.key(.rs256).publicKey.coseKey
        let cases: [(SignatureAlgorithm, COSEKeyParameters, String)] = [
            (.es256, ed, "ES256 needs an EC2 key on P-256"),
            (.es256, rsa, "ES256 needs an EC2 key on P-256"),
            (.es384, p256, "ES384 needs an EC2 key on P-384"),
            (.es512, p256, "ES512 needs an EC2 key on P-521"),
            (.es256k, p256, "ES256K needs an EC2 key on secp256k1"),
            (.edDSA, p256, "EdDSA needs an OKP key on Ed25519"),
            (.edDSA, .okp(curve: .p256, x: [UInt8](repeating: 1, count: 32)), "EdDSA needs an OKP key on Ed25519"),
            (.es256, .okp(curve: .p256, x: [UInt8](repeating: 1, count: 32)), "ES256 needs an EC2 key on P-256"),
            (.rs256, p256, "RS256 needs an RSA key"),
            (.ps256, ed, "PS256 needs an RSA key"),
        ]
        for (algorithm, parameters, reason) in cases {
            #expect(throws: Self.publicKeyError(reason)) { try CredentialPublicKey(algorithm: algorithm, coseKey: parameters) }
        }
    }

    @Test("EC2 coordinates of the wrong length, off the curve, or not below p", arguments: ecAlgorithms)
    func coseBadPoints(_ algorithm: SignatureAlgorithm) throws {
        guard case .ec2(let curve, let x, let y) = try TestKeys.key(algorithm).publicKey.coseKey else {
            Issue.record("not EC2")
            return
        }
        let length = curve.coordinateByteCount
        #expect(throws: Self.publicKeyError("\(curve) coordinates must be \(length) bytes each, got \(length) and \(length - 1)")) {
            try CredentialPublicKey(algorithm: algorithm, coseKey: .ec2(curve: curve, x: x, y: Array(y.dropFirst())))
        }
        #expect(throws: Self.publicKeyError("\(curve) coordinates must be \(length) bytes each, got \(length + 1) and \(length)")) {
            try CredentialPublicKey(algorithm: algorithm, coseKey: .ec2(curve: curve, x: [0] + x, y: y))
        }
        var offCurve = y
        offCurve[length - 1] ^= 0x01
        let allOnes = [UInt8](repeating: 0xFF, count: length)
        for (px, py) in [(x, offCurve), (allOnes, y), (x, allOnes), ([UInt8](repeating: 0, count: length), [UInt8](repeating: 0, count: length))] {
            Self.expectOpenSSLError(from: ["EVP_PKEY_fromdata", "EVP_PKEY_public_check_quick"]) {
                _ = try CredentialPublicKey(algorithm: algorithm, coseKey: .ec2(curve: curve, x: px, y: py))
            }
        }
    }

    @Test("OKP keys of the wrong length; an Ed25519 key that is no point never verifies")
    func coseBadEd25519() throws {
        for count in [0, 31, 33] {
            #expect(throws: Self.publicKeyError("Ed25519 public key must be 32 bytes, got \(count)")) {
                try CredentialPublicKey(algorithm: .edDSA, coseKey: .okp(curve: .ed25519, x: [UInt8](repeating: 9, count: count)))
            }
        }
        // y = 2^255 - 1 is not reduced mod p: not an encoding of any point.
        let notAPoint = try CredentialPublicKey(algorithm: .edDSA, coseKey: .okp(curve: .ed25519, x: [UInt8](repeating: 0xFF, count: 32)))
        let signature = try TestKeys.key(.edDSA).signature(for: [1])
        #expect(!notAPoint.isValidSignature(signature, for: [1]))
        #expect(!notAPoint.isValidSignature([UInt8](repeating: 0, count: 64), for: [1]))
    }

    @Test("RSA parameters: size, exponent, leading zeros", arguments: [SignatureAlgorithm.rs256, .ps256])
    func coseRSA(_ algorithm: SignatureAlgorithm) throws {
        guard case .rsa(let n, let e) = try TestKeys.key(algorithm).publicKey.coseKey else {
            Issue.record("not RSA")
            return
        }
        for (modulus, bits) in [(Array(n.prefix(128)), 1024), (Array(n.prefix(255)), 2040), ([0x01] + n + n, 4097), ([], 0)] {
            #expect(throws: Self.publicKeyError("RSA modulus must be 2048 to 4096 bits, got \(bits)")) {
                try CredentialPublicKey(algorithm: algorithm, coseKey: .rsa(n: modulus, e: e))
            }
        }
        for exponent in [[], [0x00], [0x01], [0x01, 0x00, 0x00], n, n + [0x01]] as [[UInt8]] {
            #expect(throws: Self.publicKeyError("RSA public exponent must be odd, at least 3 and below n")) {
                try CredentialPublicKey(algorithm: algorithm, coseKey: .rsa(n: n, e: exponent))
            }
        }
        let padded = try CredentialPublicKey(algorithm: algorithm, coseKey: .rsa(n: [0, 0] + n, e: [0] + e))
        #expect(padded.coseKey == .rsa(n: n, e: e))
        #expect(padded == (try TestKeys.key(algorithm).publicKey))
        let fourKBits = try CredentialPublicKey(algorithm: algorithm, coseKey: .rsa(n: n + n, e: e))
        #expect(!fourKBits.isValidSignature([UInt8](repeating: 1, count: 512), for: [1]))
    }

    @Test("verification never crashes on garbage", arguments: algorithms)
    func garbageSignatures(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let message = Array("message".utf8)
        let valid = try key.signature(for: message)
        // The valid signature with its outer length re-encoded in a non-minimal long form (not DER).
        let body = Array(valid.dropFirst(valid[1] & 0x80 != 0 ? 3 : 2))
        let nonMinimalLength = [0x30, 0x82, 0x00, UInt8(truncatingIfNeeded: body.count)] + body
        let garbage: [[UInt8]] = [nonMinimalLength,
            [], [0x30], [0x30, 0x00], [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00],
            [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01], [UInt8](repeating: 0xFF, count: valid.count),
            [UInt8](repeating: 0, count: valid.count), [UInt8](repeating: 0, count: 10_000), SecureRandom.bytes(valid.count),
        ]
        for signature in garbage {
            #expect(!key.publicKey.isValidSignature(signature, for: message))
        }
        #expect(key.publicKey.isValidSignature(valid, for: message), "the error queue is left clean")
    }

    // MARK: - Random stream

    @Test("a random stream that returns the wrong count is reported, not trusted", arguments: algorithms)
    func shortStream(_ algorithm: SignatureAlgorithm) {
        let asked = switch algorithm {
        case .rs256, .ps256: 128
        default: algorithm.curve?.coordinateByteCount ?? 0
        }
        #expect(throws: Self.privateKeyError("random stream returned 3 bytes, asked for \(asked)")) {
            try CredentialPrivateKey(algorithm: algorithm, randomBytes: { _ in [1, 2, 3] })
        }
    }

    @Test("a stuck stream gives up after 1000 draws", arguments: ecAlgorithms)
    func stuckStream(_ algorithm: SignatureAlgorithm) {
        for byte: UInt8 in [0x00, 0xFF] {
            var calls = 0
            #expect(throws: Self.privateKeyError("random stream gave no \(algorithm.name) scalar in 1..<n in 1000 draws")) {
                try CredentialPrivateKey(algorithm: algorithm, randomBytes: { count in
                    calls += 1
                    return [UInt8](repeating: byte, count: count)
                })
            }
            #expect(calls == 1000)
        }
    }

    @Test("P-521 scalars: the 7 bits above the order's 521 are cleared; rejected draws are retried")
    func p521Draws() throws {
        var draws: [[UInt8]] = [
            [UInt8](repeating: 0, count: 66),  // zero: drawn again
            [0xFF] + [UInt8](repeating: 0, count: 64) + [0x01],  // 0x01 00…01 once masked
        ]
        let key = try CredentialPrivateKey(algorithm: .es512, randomBytes: { _ in draws.removeFirst() })
        #expect(key.privateKeyBytes == [0x01] + [UInt8](repeating: 0, count: 64) + [0x01])
        #expect(draws.isEmpty)
    }

    @Test("PS256's deterministic salt must be 32 bytes")
    func ps256SaltStream() throws {
        let key = try TestKeys.key(.ps256)
        #expect(throws: Self.privateKeyError("random stream returned 0 bytes, asked for 32")) {
            try key.deterministicSignature(for: [1], randomBytes: { _ in [] })
        }
    }
}
