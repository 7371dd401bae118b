import CardCrypto
import Foundation
import FIDOWire

/// The attestation key and certificate chain of an emulated card.
///
/// The emulator has its own root CA ("Arculus Card Emulator Root CA — not a vendor CA"), generated
/// once and committed with its key in `Fixtures/attestation/` and compiled in
/// (`EmulatorAttestationMaterial`). Batch certificates follow the FIDO attestation certificate
/// requirements (WebAuthn §8.2.1): X.509 v3, subject OU "Authenticator Attestation", the AAGUID
/// extension 1.3.6.1.4.1.45724.1.1.4 (non-critical) and basicConstraints CA:FALSE. Verifiers that
/// should accept emulated cards trust `Fixtures/attestation/emulator-root-ca.pem`.
public struct AttestationIdentity: Sendable {
    /// The batch (leaf) certificate sent in `x5c`.
    public let certificate: X509Certificate
    /// The batch private key.
    public let privateKey: P256PrivateKey
    /// The emulator's root certificate (not sent in `x5c`; trust anchor for verifiers).
    public let rootCertificate: X509Certificate

    public init(certificate: X509Certificate, privateKey: P256PrivateKey, rootCertificate: X509Certificate) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.rootCertificate = rootCertificate
    }

    /// The AAGUID extension's OID (FIDO attestation certificate requirements).
    public static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    /// The committed batch identity for `profile`'s AAGUID, or for another AAGUID a batch
    /// certificate issued by the emulator root with the committed batch key. Such a certificate
    /// reads no clock: it is valid from the root's own start, as the committed ones are, and its
    /// signature follows `entropy` — RFC 6979's nonce for a seeded card, so that its every byte
    /// is the same on every run, a random one otherwise.
    public static func emulator(for profile: CardProfile, entropy: CardEntropy = .system) throws -> AttestationIdentity {
        let aaguid = try profile.aaguidBytes
        let root = try X509Certificate(pem: EmulatorAttestationMaterial.rootCertificatePEM)
        let batchKey = try P256PrivateKey(pemPKCS8: EmulatorAttestationMaterial.batchPrivateKeyPEM)
        for pem in EmulatorAttestationMaterial.batchCertificatePEMs {
            let certificate = try X509Certificate(pem: pem)
            if certificate.extensionValue(oid: aaguidExtensionOID) == [0x04, 0x10] + aaguid {
                return AttestationIdentity(certificate: certificate, privateKey: batchKey, rootCertificate: root)
            }
        }
        let rootKey = try P256PrivateKey(pemPKCS8: EmulatorAttestationMaterial.rootPrivateKeyPEM)
        let certificate = try issueBatchCertificate(aaguid: aaguid, model: profile.description, batchKey: batchKey,
                                                    root: root, rootKey: rootKey, deterministic: entropy != .system)
        return AttestationIdentity(certificate: certificate, privateKey: batchKey, rootCertificate: root)
    }

    /// Subject of the emulator root CA.
    public static let rootSubject: [(String, String)] = [
        ("C", "US"), ("O", "Arculus Card Emulator (not a vendor CA)"),
        ("OU", "Emulator Attestation Root"), ("CN", "Arculus Card Emulator Root CA"),
    ]

    /// The certificate name of a card model described as `description`: the description up to
    /// its first `; ` (a captured profile's description goes on with what it dropped, which is no
    /// part of the model's name), at most 64 characters (X.520's bound on a common name).
    public static func commonName(_ description: String) -> String {
        String((description.components(separatedBy: "; ").first ?? description).prefix(64))
    }

    /// Issues a FIDO batch certificate for `aaguid` under `root`, valid from the root's start
    /// (``issueLeaf(unit:model:extraSubject:serialNumber:aaguid:key:root:rootKey:deterministic:)``).
    public static func issueBatchCertificate(aaguid: [UInt8], model: String, batchKey: P256PrivateKey,
                                             root: X509Certificate, rootKey: P256PrivateKey,
                                             deterministic: Bool = false) throws -> X509Certificate {
        try issueLeaf(unit: "Authenticator Attestation", model: model, extraSubject: [],
                      serialNumber: [0x01] + Array(SHA256.hash(aaguid).prefix(15)), aaguid: aaguid,
                      key: batchKey.publicKey, root: root, rootKey: rootKey, deterministic: deterministic)
    }

    /// How long a leaf certificate is valid: 20 years (within its root's validity).
    static let leafValidity: TimeInterval = 20 * 365 * 86_400

    /// A leaf certificate under `root`, with the FIDO subject (OU `unit`, CN the model) and the
    /// AAGUID extension. Its dates are the root's: valid from the root's start for 20 years (or
    /// to the root's end, if sooner), so issuing one reads no clock; `deterministic` signs with
    /// RFC 6979's nonce, so the same inputs give the same certificate.
    static func issueLeaf(unit: String, model: String, extraSubject: [(String, String)], serialNumber: [UInt8],
                          aaguid: [UInt8], key: P256PublicKey, root: X509Certificate, rootKey: P256PrivateKey,
                          deterministic: Bool) throws -> X509Certificate {
        let start = root.notBefore
        return try X509Certificate.make(
            subject: [("C", "US"), ("O", "Arculus Card Emulator (not a vendor CA)"),
                      ("OU", unit), ("CN", commonName(model))] + extraSubject,
            issuer: rootSubject, serialNumber: serialNumber,
            notBefore: start, notAfter: min(root.notAfter, start.addingTimeInterval(leafValidity)),
            subjectPublicKey: key, issuerPrivateKey: rootKey, isCA: false,
            extraExtensions: [X509Extension(oid: aaguidExtensionOID, critical: false, derValue: [0x04, 0x10] + aaguid)],
            deterministic: deterministic)
    }
}

extension AttestationIdentity {
    /// The identity for enterprise attestation (CTAP 2.1 §7.1) on `profile`: a key of this card
    /// model alone — derived from the committed batch key and the AAGUID, so it is the same on
    /// every run and survives a reset, as a device-bound key on a real card does — and a
    /// certificate issued by the emulator root whose subject says "Enterprise Attestation" and
    /// whose serial number identifies the device (the uniquely identifying information an
    /// enterprise attestation may carry). Its certificate is issued as a batch certificate is
    /// (``emulator(for:entropy:)``): the root's dates, a signature as `entropy` says.
    public static func enterprise(for profile: CardProfile, entropy: CardEntropy = .system) throws -> AttestationIdentity {
        let aaguid = try profile.aaguidBytes
        let root = try X509Certificate(pem: EmulatorAttestationMaterial.rootCertificatePEM)
        let rootKey = try P256PrivateKey(pemPKCS8: EmulatorAttestationMaterial.rootPrivateKeyPEM)
        let batchKey = try P256PrivateKey(pemPKCS8: EmulatorAttestationMaterial.batchPrivateKeyPEM)
        let seed = HKDFSHA256.deriveKey(inputKeyMaterial: batchKey.rawScalar, salt: aaguid,
                                        info: Array("arculus-emulator enterprise attestation".utf8), outputByteCount: 32)
        var stream = CardRandom(.seeded(seed))
        let key = stream.p256Key()
        let certificate = try issueLeaf(
            unit: "Enterprise Attestation", model: profile.description,
            extraSubject: [("serialNumber", Hex.string(seed.prefix(8), uppercase: false))],
            serialNumber: [0x02] + Array(seed.suffix(15)), aaguid: aaguid, key: key.publicKey, root: root, rootKey: rootKey,
            deterministic: entropy != .system)
        return AttestationIdentity(certificate: certificate, privateKey: key, rootCertificate: root)
    }
}
