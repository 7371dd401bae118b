import Foundation
import Testing
@testable import CardCrypto

/// Known answers for the credential algorithms: RFC 6979 (ES384, ES512 and the other-hash rows
/// that exercise bits2int), RFC 8032 (EdDSA), an independent implementation for ES256K, and the
/// openssl command-line tool for RS256/PS256.
@Suite("Credential key known-answer vectors")
struct CredentialKeyVectorTests {
    @Test("RFC 6979 A.2.6 / A.2.7: published key gives the published public key", arguments: DeterministicSignatureTests.rfc6979Cases.filter { $0.message == "sample" && $0.hash == "SHA-256" })
    func rfc6979PublicKeys(_ vector: DeterministicSignatureTests.RFC6979Case) throws {
        let key = try CredentialPrivateKey(algorithm: vector.algorithm, privateKeyBytes: Hex.bytes(vector.x))
        let curve: EllipticCurve = vector.algorithm == .es384 ? .p384 : .p521
        #expect(key.publicKey.coseKey == .ec2(curve: curve, x: Hex.bytes(vector.ux), y: Hex.bytes(vector.uy)))
    }

    @Test("RFC 6979 A.2.6 SHA-384 and A.2.7 SHA-512 rows through the public ES384 / ES512 API", arguments: DeterministicSignatureTests.rfc6979Cases.filter { ($0.algorithm == .es384 && $0.hash == "SHA-384") || ($0.algorithm == .es512 && $0.hash == "SHA-512") })
    func rfc6979PublicAPI(_ vector: DeterministicSignatureTests.RFC6979Case) throws {
        let key = try CredentialPrivateKey(algorithm: vector.algorithm, privateKeyBytes: Hex.bytes(vector.x))
        let message = Array(vector.message.utf8)
        let signature = try key.deterministicSignature(for: message, randomBytes: { _ in [] })
        #expect(signature == DERSignature.encode(r: Hex.bytes(vector.r), s: Hex.bytes(vector.s)))
        #expect(key.publicKey.isValidSignature(signature, for: message))
        let verifier = try CredentialPublicKey(algorithm: vector.algorithm, coseKey: key.publicKey.coseKey)
        #expect(verifier.isValidSignature(signature, for: message))
    }

    struct Secp256k1File: Decodable {
        struct Vector: Decodable, Sendable, CustomStringConvertible {
            let x: String, ux: String, uy: String, message: String, r: String, s: String
            var description: String { message }
        }
        let vectors: [Vector]
    }

    static let secp256k1Vectors = (try? VectorFile.load("secp256k1-rfc6979.json", as: Secp256k1File.self).vectors) ?? []

    @Test("ES256K: public key and RFC 6979 signature agree with pyca/cryptography", arguments: secp256k1Vectors)
    func secp256k1(_ vector: Secp256k1File.Vector) throws {
        let key = try CredentialPrivateKey(algorithm: .es256k, privateKeyBytes: Hex.bytes(vector.x))
        #expect(key.publicKey.coseKey == .ec2(curve: .secp256k1, x: Hex.bytes(vector.ux), y: Hex.bytes(vector.uy)))
        let message = Array(vector.message.utf8)
        let signature = try key.deterministicSignature(for: message, randomBytes: { _ in [] })
        #expect(signature == DERSignature.encode(r: Hex.bytes(vector.r), s: Hex.bytes(vector.s)))
        #expect(key.publicKey.isValidSignature(signature, for: message))
    }

    @Test("the secp256k1 cross-check file loads")
    func secp256k1FileLoads() {
        #expect(Self.secp256k1Vectors.count == 3)
    }

    struct Ed25519File: Decodable {
        struct Vector: Decodable, Sendable, CustomStringConvertible {
            let name: String, secretKey: String, publicKey: String, message: String, signature: String
            var description: String { name }
        }
        let vectors: [Vector]
    }

    static let ed25519Vectors = (try? VectorFile.load("rfc8032-ed25519.json", as: Ed25519File.self).vectors) ?? []

    @Test("RFC 8032 §7.1: public key from the seed and the exact signature", arguments: ed25519Vectors)
    func ed25519(_ vector: Ed25519File.Vector) throws {
        let key = try CredentialPrivateKey(algorithm: .edDSA, privateKeyBytes: Hex.bytes(vector.secretKey))
        #expect(key.publicKey.coseKey == .okp(curve: .ed25519, x: Hex.bytes(vector.publicKey)))
        let message = Hex.bytes(vector.message)
        #expect(try key.signature(for: message) == Hex.bytes(vector.signature))
        #expect(try key.deterministicSignature(for: message, randomBytes: { _ in [] }) == Hex.bytes(vector.signature))
        let verifier = try CredentialPublicKey(algorithm: .edDSA, coseKey: .okp(curve: .ed25519, x: Hex.bytes(vector.publicKey)))
        #expect(verifier.isValidSignature(Hex.bytes(vector.signature), for: message))
        #expect(!verifier.isValidSignature(Hex.bytes(vector.signature), for: message + [0]))
    }

    @Test("the RFC 8032 file loads: TEST 1-3")
    func ed25519FileLoads() {
        #expect(Self.ed25519Vectors.map(\.name) == ["TEST 1", "TEST 2", "TEST 3"])
    }

    struct OpenSSLFile: Decodable {
        struct RSA: Decodable {
            let pkcs8PEM: String
            let publicKeyPEM: String
            let message: String
            let rs256Signature: String
            let ps256Signature: String
            let ps256DeterministicSignature: String
        }
        struct DERItem: Decodable { let der: String }
        struct PEMItem: Decodable { let pem: String }
        let rsa2048: RSA
        let rsa1024PKCS1: DERItem
        let rsa3PrimePKCS8: DERItem
        let rsaPSSPKCS8PEM: PEMItem
        let x25519PKCS8: DERItem
        let p224PKCS8: DERItem
        let x25519SPKI: DERItem
        let p224SPKI: DERItem
        let p256EncryptedPEM: PEMItem
        let p256SEC1PEM: PEMItem
    }

    static func openSSLFixtures() throws -> OpenSSLFile {
        try VectorFile.load("openssl-cli-keys.json")
    }

    @Test("RS256: the PKCS #1 v1.5 signature equals the one `openssl dgst -sha256 -sign` made")
    func rs256MatchesOpenSSLTool() throws {
        let fixture = try Self.openSSLFixtures().rsa2048
        let key = try CredentialPrivateKey(pemPKCS8: fixture.pkcs8PEM)
        #expect(key.algorithm == .rs256)
        let message = Array(fixture.message.utf8)
        #expect(try key.signature(for: message) == Hex.bytes(fixture.rs256Signature))
        #expect(try key.deterministicSignature(for: message, randomBytes: { _ in [] }) == Hex.bytes(fixture.rs256Signature))
        let verifier = try CredentialPublicKey(pem: fixture.publicKeyPEM)
        #expect(verifier == key.publicKey)
        #expect(verifier.isValidSignature(Hex.bytes(fixture.rs256Signature), for: message))
        // The re-encodings are byte for byte what the tool wrote.
        #expect(key.pkcs8DER == pemBody(fixture.pkcs8PEM))
        #expect(key.pemPKCS8 == fixture.pkcs8PEM)
        #expect(key.publicKey.pem == fixture.publicKeyPEM)
    }

    @Test("PS256: the tool's signature verifies; the deterministic one has its recorded value and verifies")
    func ps256WithOpenSSLTool() throws {
        let fixture = try Self.openSSLFixtures().rsa2048
        let key = try CredentialPrivateKey(pemPKCS8: fixture.pkcs8PEM, algorithm: .ps256)
        let message = Array(fixture.message.utf8)
        #expect(key.publicKey.isValidSignature(Hex.bytes(fixture.ps256Signature), for: message))
        let asRS256 = try CredentialPublicKey(pem: fixture.publicKeyPEM)
        #expect(!asRS256.isValidSignature(Hex.bytes(fixture.ps256Signature), for: message))

        // Salt 00 01 … 1f. The recorded value was checked once with
        // `openssl dgst -sha256 -verify pub.pem -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32`.
        let salt = (0..<32).map { UInt8($0) }
        let signature = try key.deterministicSignature(for: message, randomBytes: { count in Array(salt.prefix(count)) })
        #expect(signature == Hex.bytes(fixture.ps256DeterministicSignature))
        #expect(key.publicKey.isValidSignature(signature, for: message))
    }
}
