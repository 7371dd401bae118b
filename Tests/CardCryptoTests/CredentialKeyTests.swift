import CardCrypto
import Foundation
import Testing

/// Every algorithm through the same paces: seeded generation, signing and verification, and the
/// round trips through every stored and exported form.
@Suite("Credential keys of every algorithm")
struct CredentialKeyTests {
    static let algorithms = SignatureAlgorithm.allCases
    static let message = Array("authenticatorData || clientDataHash".utf8)

    @Test("COSE identifiers and names", arguments: algorithms)
    func identifiers(_ algorithm: SignatureAlgorithm) {
        let expected: [SignatureAlgorithm: (Int, String)] = [
            .es256: (-7, "ES256"), .es384: (-35, "ES384"), .es512: (-36, "ES512"), .es256k: (-47, "ES256K"),
            .edDSA: (-8, "EdDSA"), .rs256: (-257, "RS256"), .ps256: (-37, "PS256"),
        ]
        #expect(algorithm.rawValue == expected[algorithm]?.0)
        #expect(algorithm.name == expected[algorithm]?.1)
        #expect("\(algorithm)" == algorithm.name)
        #expect(SignatureAlgorithm(rawValue: algorithm.rawValue) == algorithm)
    }

    @Test("the same seeded stream gives the same key; another stream another key", arguments: algorithms)
    func seededGeneration(_ algorithm: SignatureAlgorithm) throws {
        let first = try TestKeys.key(algorithm)
        let again = try CredentialPrivateKey(algorithm: algorithm, randomBytes: SeededStream("test key \(algorithm.name)").bytes)
        #expect(again.privateKeyBytes == first.privateKeyBytes)
        #expect(again.publicKey == first.publicKey)
        let other = try CredentialPrivateKey(algorithm: algorithm, randomBytes: SeededStream("another seed").bytes)
        #expect(other.privateKeyBytes != first.privateKeyBytes)
        #expect(other.publicKey != first.publicKey)
        #expect(other.algorithm == algorithm)
    }

    @Test("ES256 draws exactly what the card always drew: 32 bytes, used as the P-256 scalar")
    func es256GenerationMatchesP256() throws {
        let stream = SeededStream("card seed")
        let key = try CredentialPrivateKey(algorithm: .es256, randomBytes: stream.bytes)
        #expect(stream.consumed == 32)
        #expect(key.privateKeyBytes == SeededStream("card seed").bytes(32))
        let p256 = try #require(key.p256PrivateKey)
        #expect(p256.rawScalar == key.privateKeyBytes)
        #expect(CredentialPublicKey(p256.publicKey) == key.publicKey)
        #expect(try TestKeys.key(.es384).p256PrivateKey == nil)
    }

    @Test("key and COSE sizes", arguments: algorithms)
    func sizes(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        #expect(key.algorithm == algorithm)
        #expect(key.publicKey.algorithm == algorithm)
        #expect(key.publicKey.coseKey.keyType == algorithm.keyType)
        switch key.publicKey.coseKey {
        case .ec2(let curve, let x, let y):
            #expect(curve == algorithm.curve)
            #expect(x.count == curve.coordinateByteCount && y.count == curve.coordinateByteCount)
            #expect(key.privateKeyBytes.count == curve.coordinateByteCount)
        case .okp(let curve, let x):
            #expect(curve == .ed25519)
            #expect(x.count == 32)
            #expect(key.privateKeyBytes.count == 32)
        case .rsa(let n, let e):
            #expect(n.count == 256 && n[0] >= 0x80, "exactly 2048 bits")
            #expect(e == [0x01, 0x00, 0x01])
            #expect(key.privateKeyBytes.first == 0x30)
        }
    }

    @Test("sign, verify; a flipped bit in the message or anywhere in the signature fails", arguments: algorithms)
    func signAndVerify(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let signature = try key.signature(for: Self.message)
        switch algorithm {
        case .edDSA: #expect(signature.count == 64)
        case .rs256, .ps256: #expect(signature.count == 256)
        default: #expect(signature.first == 0x30)
        }
        #expect(key.publicKey.isValidSignature(signature, for: Self.message))
        for index in Self.message.indices {
            var tampered = Self.message
            tampered[index] ^= 0x01
            #expect(!key.publicKey.isValidSignature(signature, for: tampered))
        }
        for index in signature.indices {
            var tampered = signature
            tampered[index] ^= 0x80 >> (index % 8)
            #expect(!key.publicKey.isValidSignature(tampered, for: Self.message), "bit flipped in byte \(index)")
        }
        #expect(!key.publicKey.isValidSignature(signature + [0], for: Self.message))
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: Self.message))
        #expect(!key.publicKey.isValidSignature([], for: Self.message))
        let other = try CredentialPrivateKey(algorithm: algorithm, randomBytes: SeededStream("other").bytes)
        #expect(!other.publicKey.isValidSignature(signature, for: Self.message))
    }

    @Test("deterministic signatures repeat and verify; PS256 takes its salt from the stream", arguments: algorithms)
    func deterministicSignatures(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let stream = SeededStream("salt")
        let first = try key.deterministicSignature(for: Self.message, randomBytes: stream.bytes)
        let second = try key.deterministicSignature(for: Self.message, randomBytes: SeededStream("salt").bytes)
        #expect(first == second)
        #expect(key.publicKey.isValidSignature(first, for: Self.message))
        #expect(stream.consumed == (algorithm == .ps256 ? 32 : 0))
        let otherSalt = try key.deterministicSignature(for: Self.message, randomBytes: SeededStream("pepper").bytes)
        #expect((otherSalt == first) == (algorithm != .ps256))
        #expect(key.publicKey.isValidSignature(otherSalt, for: Self.message))
        #expect(try key.deterministicSignature(for: Self.message + [0], randomBytes: SeededStream("salt").bytes) != first)
    }

    @Test("random-nonce signatures differ for ECDSA and PS256, repeat for EdDSA and RS256", arguments: algorithms)
    func randomizedSignatures(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let first = try key.signature(for: Self.message)
        let second = try key.signature(for: Self.message)
        #expect((first == second) == (algorithm == .edDSA || algorithm == .rs256))
        #expect(key.publicKey.isValidSignature(second, for: Self.message))
    }

    @Test("privateKeyBytes round trip", arguments: algorithms)
    func privateKeyBytesRoundTrip(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let copy = try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: key.privateKeyBytes)
        #expect(copy.privateKeyBytes == key.privateKeyBytes)
        #expect(copy.publicKey == key.publicKey)
        #expect(key.publicKey.isValidSignature(try copy.signature(for: Self.message), for: Self.message))
    }

    @Test("PKCS #8 DER and PEM round trips (a PS256 key comes back as RS256 unless asked)", arguments: algorithms)
    func pkcs8RoundTrip(_ algorithm: SignatureAlgorithm) throws {
        let key = try TestKeys.key(algorithm)
        let der = key.pkcs8DER
        #expect(der.first == 0x30)
        let pem = key.pemPKCS8
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        #expect(pemBody(pem) == der)

        let detected = try CredentialPrivateKey(pkcs8DER: der)
        #expect(detected.algorithm == (algorithm == .ps256 ? .rs256 : algorithm))
        #expect(detected.privateKeyBytes == key.privateKeyBytes)
        let named = try CredentialPrivateKey(pkcs8DER: der, algorithm: algorithm)
        #expect(named.algorithm == algorithm)
        #expect(named.publicKey == key.publicKey)
        #expect(named.pkcs8DER == der)
        let fromPEM = try CredentialPrivateKey(pemPKCS8: pem, algorithm: algorithm)
        #expect(fromPEM.privateKeyBytes == key.privateKeyBytes)
        #expect(fromPEM.pemPKCS8 == pem)
    }

    @Test("Ed25519 PKCS #8 is the RFC 8410 encoding")
    func ed25519PKCS8Layout() throws {
        let key = try TestKeys.key(.edDSA)
        #expect(key.pkcs8DER == Hex.bytes("302e020100300506032b657004220420") + key.privateKeyBytes)
        #expect(key.publicKey.derSubjectPublicKeyInfo == Hex.bytes("302a300506032b6570032100") + key.publicKey.coseKeyX)
    }

    @Test("SubjectPublicKeyInfo DER and PEM and COSE round trips", arguments: algorithms)
    func publicKeyRoundTrips(_ algorithm: SignatureAlgorithm) throws {
        let publicKey = try TestKeys.key(algorithm).publicKey
        let spki = publicKey.derSubjectPublicKeyInfo
        #expect(try CredentialPublicKey(derSubjectPublicKeyInfo: spki, algorithm: algorithm) == publicKey)
        #expect(try CredentialPublicKey(derSubjectPublicKeyInfo: spki).algorithm == (algorithm == .ps256 ? .rs256 : algorithm))
        #expect(try CredentialPublicKey(pem: publicKey.pem, algorithm: algorithm) == publicKey)
        #expect(pemBody(publicKey.pem) == spki)
        #expect(publicKey.pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let fromCOSE = try CredentialPublicKey(algorithm: algorithm, coseKey: publicKey.coseKey)
        #expect(fromCOSE == publicKey)
        #expect(fromCOSE.derSubjectPublicKeyInfo == spki)
        #expect(Set([publicKey, fromCOSE]).count == 1)
        let signature = try TestKeys.key(algorithm).signature(for: Self.message)
        #expect(fromCOSE.isValidSignature(signature, for: Self.message))
    }

    @Test("the ES256 type interoperates with P256PrivateKey and P256PublicKey")
    func p256Interop() throws {
        let p256 = try P256PrivateKey()
        let wrapped = CredentialPrivateKey(p256)
        #expect(wrapped.privateKeyBytes == p256.rawScalar)
        #expect(p256.publicKey.isValidSignature(try wrapped.signature(for: Self.message), for: Self.message))
        #expect(wrapped.publicKey.isValidSignature(try p256.signature(for: Self.message), for: Self.message))
        #expect(try wrapped.deterministicSignature(for: Self.message, randomBytes: { _ in [] })
            == (try p256.deterministicSignature(for: Self.message)))
        #expect(wrapped.publicKey.derSubjectPublicKeyInfo == p256.publicKey.derSubjectPublicKeyInfo)
        #expect(try CredentialPrivateKey(pemPKCS8: p256.pemPKCS8).privateKeyBytes == p256.rawScalar)
        #expect(try P256PrivateKey(pemPKCS8: wrapped.pemPKCS8).rawScalar == p256.rawScalar)
    }

    @Test("one key signs from many tasks at once", arguments: [SignatureAlgorithm.es384, .edDSA, .ps256])
    func concurrentUse(_ algorithm: SignatureAlgorithm) async throws {
        let key = try TestKeys.key(algorithm)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let message = [UInt8(index)]
                    let signature = index % 2 == 0
                        ? try key.signature(for: message)
                        : try key.deterministicSignature(for: message, randomBytes: { SecureRandom.bytes($0) })
                    return key.publicKey.isValidSignature(signature, for: message)
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }
}

extension CredentialPublicKey {
    /// The OKP `x` (test shorthand).
    var coseKeyX: [UInt8] {
        if case .okp(_, let x) = coseKey { return x }
        return []
    }
}
