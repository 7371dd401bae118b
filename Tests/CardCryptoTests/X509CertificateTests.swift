import CardCrypto
import Foundation
import Testing

@Suite("X.509 certificates")
struct X509CertificateTests {
    static let aaguidOID = "1.3.6.1.4.1.45724.1.1.4"
    static let basicConstraintsOID = "2.5.29.19"
    static let keyUsageOID = "2.5.29.15"
    static let subjectKeyIdentifierOID = "2.5.29.14"
    static let authorityKeyIdentifierOID = "2.5.29.35"
    static let aaguid = Hex.bytes("0102030405060708090a0b0c0d0e0f10")

    static let caName = [("C", "US"), ("O", "Arculus Emulator (not a vendor CA)"), ("CN", "Emulator Root CA")]
    static let leafName = [
        ("C", "US"), ("O", "Arculus Emulator (not a vendor CA)"), ("OU", "Authenticator Attestation"),
        ("CN", "Emulator Attestation"),
    ]

    struct Chain {
        let caKey: P256PrivateKey
        let leafKey: P256PrivateKey
        let ca: X509Certificate
        let leaf: X509Certificate
    }

    static func makeChain() throws -> Chain {
        let caKey = try P256PrivateKey()
        let leafKey = try P256PrivateKey()
        let notBefore = Date(timeIntervalSince1970: 1_700_000_000)
        let notAfter = Date(timeIntervalSince1970: 2_600_000_000)  // after 2050: GeneralizedTime
        let ca = try X509Certificate.make(
            subject: caName, issuer: caName, serialNumber: [0x01],
            notBefore: notBefore, notAfter: notAfter,
            subjectPublicKey: caKey.publicKey, issuerPrivateKey: caKey, isCA: true)
        let leaf = try X509Certificate.make(
            subject: leafName, issuer: caName, serialNumber: [0x00, 0x9F, 0x12, 0x34],
            notBefore: notBefore, notAfter: notAfter,
            subjectPublicKey: leafKey.publicKey, issuerPrivateKey: caKey, isCA: false,
            extraExtensions: [X509Extension(oid: aaguidOID, critical: false, derValue: [0x04, 0x10] + aaguid)])
        return Chain(caKey: caKey, leafKey: leafKey, ca: ca, leaf: leaf)
    }

    @Test("deterministic: the same inputs give the same certificate byte for byte, signed by the issuer; random ones differ")
    func deterministic() throws {
        let caKey = try P256PrivateKey(rawScalar: Array(repeating: 0x11, count: 32))
        let leafKey = try P256PrivateKey(rawScalar: Array(repeating: 0x22, count: 32))
        func make(_ deterministic: Bool) throws -> X509Certificate {
            try X509Certificate.make(
                subject: Self.leafName, issuer: Self.caName, serialNumber: [0x05],
                notBefore: Date(timeIntervalSince1970: 1_700_000_000), notAfter: Date(timeIntervalSince1970: 2_600_000_000),
                subjectPublicKey: leafKey.publicKey, issuerPrivateKey: caKey, isCA: false, deterministic: deterministic)
        }
        let one = try make(true)
        let two = try make(true)
        #expect(one.der == two.der)
        #expect(one.isSigned(by: caKey.publicKey))
        #expect(try make(false).der != (try make(false)).der, "OpenSSL's randomised nonce")
        #expect(try make(false).isSigned(by: caKey.publicKey))
        // Only the signature differs from a randomly signed one: the same TBS.
        let random = try make(false)
        #expect(Array(random.der.dropFirst(4).prefix(300)) == Array(one.der.dropFirst(4).prefix(300)))
    }

    @Test("validity dates read back as they were given (whole seconds, UTCTime and GeneralizedTime)")
    func validity() throws {
        let chain = try Self.makeChain()
        #expect(chain.leaf.notBefore == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(chain.leaf.notAfter == Date(timeIntervalSince1970: 2_600_000_000))
    }

    @Test("Self-signed CA: v3, CA:TRUE critical, key usage, key identifier, self-signature")
    func caCertificate() throws {
        let chain = try Self.makeChain()
        let ca = chain.ca
        #expect(ca.version == 3)
        #expect(ca.isCA)
        #expect(ca.subjectDescription == "C=US, O=Arculus Emulator (not a vendor CA), CN=Emulator Root CA")
        #expect(ca.issuerDescription == ca.subjectDescription)
        #expect(try ca.publicKey == chain.caKey.publicKey)
        #expect(ca.isSigned(by: chain.caKey.publicKey))
        #expect(ca.isExtensionCritical(oid: Self.basicConstraintsOID) == true)
        #expect(ca.extensionValue(oid: Self.basicConstraintsOID) == [0x30, 0x03, 0x01, 0x01, 0xFF])
        #expect(ca.isExtensionCritical(oid: Self.keyUsageOID) == true)
        #expect(ca.extensionValue(oid: Self.keyUsageOID) == [0x03, 0x02, 0x01, 0x06])  // keyCertSign, cRLSign
        let keyIdentifier = try #require(ca.extensionValue(oid: Self.subjectKeyIdentifierOID))
        #expect(keyIdentifier.count == 22)  // OCTET STRING of a 20-byte SHA-1
        #expect(ca.extensionValue(oid: Self.authorityKeyIdentifierOID) == nil)
        #expect(ca.extensionValue(oid: Self.aaguidOID) == nil)
        #expect(ca.isExtensionCritical(oid: Self.aaguidOID) == nil)
    }

    @Test("Leaf: v3, CA:FALSE, OU=Authenticator Attestation, AAGUID extension, signed by the CA")
    func leafCertificate() throws {
        let chain = try Self.makeChain()
        let leaf = chain.leaf
        #expect(leaf.version == 3)
        #expect(!leaf.isCA)
        #expect(leaf.subjectDescription.contains("OU=Authenticator Attestation"))
        #expect(
            leaf.subjectDescription
                == "C=US, O=Arculus Emulator (not a vendor CA), OU=Authenticator Attestation, CN=Emulator Attestation")
        #expect(leaf.issuerDescription == chain.ca.subjectDescription)
        #expect(leaf.extensionValue(oid: Self.aaguidOID) == [0x04, 0x10] + Self.aaguid)
        #expect(leaf.isExtensionCritical(oid: Self.aaguidOID) == false)
        #expect(leaf.isExtensionCritical(oid: Self.basicConstraintsOID) == true)
        #expect(leaf.extensionValue(oid: Self.basicConstraintsOID) == [0x30, 0x00])
        #expect(try leaf.publicKey == chain.leafKey.publicKey)
        #expect(leaf.isSigned(by: chain.caKey.publicKey))
        #expect(!leaf.isSigned(by: chain.leafKey.publicKey))
        #expect(!leaf.isSigned(by: try P256PrivateKey().publicKey))

        // authorityKeyIdentifier = SEQUENCE { [0] <the CA's subjectKeyIdentifier> }.
        let caKeyIdentifier = try #require(chain.ca.extensionValue(oid: Self.subjectKeyIdentifierOID))
        let authorityKeyIdentifier = try #require(leaf.extensionValue(oid: Self.authorityKeyIdentifierOID))
        #expect(authorityKeyIdentifier == [0x30, 0x16, 0x80, 0x14] + caKeyIdentifier.dropFirst(2))
        #expect(leaf.extensionValue(oid: "not an oid") == nil)
    }

    @Test("DER -> PEM -> DER round trip")
    func pemRoundTrip() throws {
        let chain = try Self.makeChain()
        for certificate in [chain.ca, chain.leaf] {
            let pem = certificate.pem
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
            #expect(pem.hasSuffix("-----END CERTIFICATE-----\n"))
            let parsed = try X509Certificate(pem: pem)
            #expect(parsed.der == certificate.der)
            #expect(parsed == certificate)
            #expect(try X509Certificate(der: parsed.der) == certificate)
            #expect(parsed.subjectDescription == certificate.subjectDescription)
        }
    }

    @Test("Malformed input and invalid parameters throw")
    func invalidInputs() throws {
        let chain = try Self.makeChain()
        #expect(throws: CryptoError(function: "d2i_X509", reason: "empty input")) { try X509Certificate(der: []) }
        #expect(throws: CryptoError(function: "d2i_X509", reason: "trailing bytes after the certificate")) { try X509Certificate(der: chain.leaf.der + [0]) }
        expectOpenSSLFailure("d2i_X509", code: OpenSSLCode.asn1TooLong) { _ = try X509Certificate(der: Array(chain.leaf.der.dropLast())) }
        expectOpenSSLFailure("PEM_read_bio_X509", code: OpenSSLCode.pemNoStartLine) { _ = try X509Certificate(pem: "not a certificate") }

        let now = Date()
        func make(
            serial: [UInt8] = [1], subject: [(String, String)] = [("CN", "x")],
            notAfter: Date? = nil, extra: [X509Extension] = []
        ) throws -> X509Certificate {
            try X509Certificate.make(
                subject: subject, issuer: [("CN", "x")], serialNumber: serial,
                notBefore: now, notAfter: notAfter ?? now.addingTimeInterval(3600),
                subjectPublicKey: chain.leafKey.publicKey, issuerPrivateKey: chain.caKey, isCA: false,
                extraExtensions: extra)
        }
        #expect(throws: Never.self) { try make() }
        #expect(throws: CryptoError(function: "X509Certificate.make", reason: "serial number must be positive with at most 20 significant bytes")) { try make(serial: []) }
        #expect(throws: CryptoError(function: "X509Certificate.make", reason: "serial number must be positive with at most 20 significant bytes")) { try make(serial: [0, 0]) }
        #expect(throws: CryptoError(function: "X509Certificate.make", reason: "serial number must be positive with at most 20 significant bytes")) { try make(serial: [UInt8](repeating: 1, count: 21)) }
        expectOpenSSLFailure("X509_NAME_add_entry_by_txt(NoSuchField)", code: OpenSSLCode.unknownObjectName) { _ = try make(subject: [("NoSuchField", "x")]) }
        #expect(throws: CryptoError(function: "X509Certificate.make", reason: "notAfter precedes notBefore")) { try make(notAfter: now.addingTimeInterval(-1)) }
        expectOpenSSLFailure("OBJ_txt2obj(not.an.oid)", code: OpenSSLCode.asn1FirstNumTooLarge) {
            _ = try make(extra: [X509Extension(oid: "not.an.oid", critical: false, derValue: [0x05, 0x00])])
        }
        #expect(throws: CryptoError(function: "X509Certificate.make", reason: "duplicate extension 2.5.29.19")) {
            try make(extra: [X509Extension(oid: Self.basicConstraintsOID, critical: true, derValue: [0x30, 0x00])])
        }
    }
}
