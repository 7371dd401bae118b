internal import COpenSSL

/// An X.509 v3 certificate (P-256 / ecdsa-with-SHA256 only).
///
/// Any well-formed DER certificate can be parsed, but `publicKey` and
/// `isSigned(by:)` only support P-256 keys, and `make` only issues
/// P-256 / ecdsa-with-SHA256 certificates. Equality and hashing compare the DER.
public struct X509Certificate: Sendable, Hashable {
    /// The DER encoding of the whole certificate.
    public let der: [UInt8]
    /// The subject name on one line, e.g. `"C=US, O=..., OU=..., CN=..."`.
    public let subjectDescription: String
    /// The issuer name on one line, in the same format as `subjectDescription`.
    public let issuerDescription: String
    /// The X.509 version number (3 for v3; the encoded value plus one).
    public let version: Int
    /// True when the certificate has a basicConstraints extension with cA TRUE.
    public let isCA: Bool
    /// The parsed OpenSSL certificate, kept for extension lookups and signature checks.
    let object: X509Object

    /// Parses one DER certificate; throws if it is malformed or followed by extra bytes.
    public init(der: [UInt8]) throws {
        try self.init(object: X509Object.parse(der: der), der: der)
    }

    /// Parses the first `-----BEGIN CERTIFICATE-----` block of `pem`.
    public init(pem: String) throws {
        let pemBytes = Array(pem.utf8)
        let object: X509Object = try pemBytes.withUnsafeBytes { storage in
            let bio = try OpenSSL.makeReadOnlyBIO(over: storage, function: "PEM_read_bio_X509")
            defer { withExtendedLifetime(bio) {} }
            return X509Object(taking: try OpenSSL.nonNull(PEM_read_bio_X509(bio.pointer, nil, nil, nil), "PEM_read_bio_X509"))
        }
        try self.init(object: object, der: object.derEncoding())
    }

    private init(object: X509Object, der: [UInt8]) throws {
        self.object = object
        self.der = der
        self.subjectDescription = X509Object.describe(name: X509_get_subject_name(object.pointer))
        self.issuerDescription = X509Object.describe(name: X509_get_issuer_name(object.pointer))
        self.version = X509_get_version(object.pointer) + 1
        self.isCA = (X509_get_extension_flags(object.pointer) & UInt32(EXFLAG_CA)) != 0
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`, base64 in 64-character lines).
    public var pem: String {
        OpenSSL.mustSucceed {
            let bio = try OpenSSL.makeMemoryBIO()
            defer { withExtendedLifetime(bio) {} }
            try OpenSSL.check(PEM_write_bio_X509(bio.pointer, object.pointer), "PEM_write_bio_X509")
            return OpenSSL.contents(ofMemoryBIO: bio.pointer)
        }
    }

    /// The subject's public key; throws unless it is a valid P-256 key.
    public var publicKey: P256PublicKey {
        get throws {
            let subjectPublicKeyInfo = try OpenSSL.nonNull(X509_get_X509_PUBKEY(object.pointer), "X509_get_X509_PUBKEY")
            let encoded = try OpenSSL.encodeDER("i2d_X509_PUBKEY") { i2d_X509_PUBKEY(subjectPublicKeyInfo, $0) }
            return try P256PublicKey(derSubjectPublicKeyInfo: encoded)
        }
    }

    /// The raw extnValue contents (inner bytes of the OCTET STRING) of the extension with this dotted OID, or nil.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let found = object.findExtension(oid: oid), let value = X509_EXTENSION_get_data(found) else {
            return nil
        }
        let length = Int(ASN1_STRING_length(value))
        guard length > 0, let bytes = ASN1_STRING_get0_data(value) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Whether the extension with this dotted OID is marked critical, or nil when it is absent.
    public func isExtensionCritical(oid: String) -> Bool? {
        guard let found = object.findExtension(oid: oid) else { return nil }
        return X509_EXTENSION_get_critical(found) != 0
    }

    /// True when the certificate's signature verifies with `issuerKey`.
    public func isSigned(by issuerKey: P256PublicKey) -> Bool {
        defer { ERR_clear_error() }
        return X509_verify(object.pointer, issuerKey.key.pointer) == 1
    }

    /// Equal when the DER encodings are equal.
    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        lhs.der == rhs.der
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(der)
    }
}
