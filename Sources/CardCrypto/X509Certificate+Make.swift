public import Foundation
internal import COpenSSL

extension X509Certificate {
    /// Create and sign a certificate.
    ///
    /// The certificate is X.509 v3, signed with ecdsa-with-SHA256 by
    /// `issuerPrivateKey`, and carries:
    /// - basicConstraints, critical: `CA:TRUE` when `isCA`, otherwise `CA:FALSE`;
    /// - for a CA: subjectKeyIdentifier and a critical keyUsage (keyCertSign, cRLSign);
    /// - when the issuer key differs from the subject key (not self-signed):
    ///   authorityKeyIdentifier with the issuer's key identifier;
    /// - then `extraExtensions`, in order.
    ///
    /// Key identifiers are the SHA-1 of the public key bits (RFC 5280 §4.2.1.2, method 1).
    ///
    /// - Parameters:
    ///   - subject: Name attributes in order, by short name (C, O, OU, CN, ST, L, ...),
    ///     e.g. `[("C","US"),("O","Example"),("OU","Authenticator Attestation"),("CN","...")]`.
    ///   - issuer: The issuer's name attributes, in the same form.
    ///   - serialNumber: A positive big-endian integer of at most 20 significant bytes.
    ///   - notBefore: Start of validity (whole seconds; UTCTime before 2050, else GeneralizedTime).
    ///   - notAfter: End of validity; must not precede `notBefore`.
    ///   - subjectPublicKey: The certified key.
    ///   - issuerPrivateKey: The signing key (the subject's own key for a self-signed certificate).
    ///   - isCA: Whether the certificate is a CA certificate.
    ///   - extraExtensions: Further extensions, e.g. the FIDO AAGUID extension; an OID may appear only once.
    ///   - deterministic: Sign with the nonce of RFC 6979 instead of a random one, so that the same
    ///     inputs always give the same certificate, byte for byte (a seeded card's).
    /// - Throws: `CryptoError` for invalid input or a failing OpenSSL call.
    public static func make(
        subject: [(String, String)],
        issuer: [(String, String)],
        serialNumber: [UInt8],
        notBefore: Date, notAfter: Date,
        subjectPublicKey: P256PublicKey,
        issuerPrivateKey: P256PrivateKey,
        isCA: Bool,
        extraExtensions: [X509Extension] = [],
        deterministic: Bool = false
    ) throws -> X509Certificate {
        let operation = "X509Certificate.make"
        let serial = Array(serialNumber.drop { $0 == 0 })
        guard !serial.isEmpty, serial.count <= 20 else {
            throw CryptoError.invalidInput(operation, "serial number must be positive with at most 20 significant bytes")
        }
        guard !subject.isEmpty, !issuer.isEmpty else {
            throw CryptoError.invalidInput(operation, "subject and issuer names must not be empty")
        }
        guard notBefore <= notAfter else {
            throw CryptoError.invalidInput(operation, "notAfter precedes notBefore")
        }

        let certificate = try OpenSSLObject(X509_new(), "X509_new", release: { X509_free($0) })
        defer { withExtendedLifetime(certificate) {} }
        let x509 = certificate.pointer

        try OpenSSL.check(X509_set_version(x509, 2), "X509_set_version")  // 2 encodes v3
        try setSerialNumber(serial, on: x509)
        let subjectName = try makeName(subject)
        defer { withExtendedLifetime(subjectName) {} }
        try OpenSSL.check(X509_set_subject_name(x509, subjectName.pointer), "X509_set_subject_name")
        let issuerName = try makeName(issuer)
        defer { withExtendedLifetime(issuerName) {} }
        try OpenSSL.check(X509_set_issuer_name(x509, issuerName.pointer), "X509_set_issuer_name")
        try setTime(notBefore, X509_getm_notBefore(x509))
        try setTime(notAfter, X509_getm_notAfter(x509))
        try OpenSSL.check(X509_set_pubkey(x509, subjectPublicKey.key.pointer), "X509_set_pubkey")

        try addBasicConstraints(isCA: isCA, to: x509)
        if isCA {
            try addSubjectKeyIdentifier(for: subjectPublicKey, to: x509)
            try addCAKeyUsage(to: x509)
        }
        if issuerPrivateKey.publicKey != subjectPublicKey {
            try addAuthorityKeyIdentifier(for: issuerPrivateKey.publicKey, to: x509)
        }
        for extraExtension in extraExtensions {
            try addExtension(extraExtension, to: x509)
        }

        try OpenSSL.checkPositive(
            X509_sign(x509, issuerPrivateKey.key.pointer, FetchedAlgorithms.sha256.pointer), "X509_sign")
        let signed = try X509Object.derEncoding(of: x509)
        return try X509Certificate(der: deterministic ? try resigned(signed, with: issuerPrivateKey) : signed)
    }

    /// `certificate` with its signature made again with RFC 6979's nonce: X509_sign fills in the
    /// signature algorithm in both places, so only the signature value changes.
    private static func resigned(_ certificate: [UInt8], with key: P256PrivateKey) throws -> [UInt8] {
        var outer = DER.Reader(certificate)
        guard var parts = outer.element(tag: 0x30), outer.isAtEnd, let tbs = parts.anyElement(),
              let algorithm = parts.anyElement(), parts.element(tag: 0x03) != nil, parts.isAtEnd else {
            throw CryptoError.openSSL("X509_sign gave a certificate that is not TBS, algorithm and signature")
        }
        return DER.sequence([tbs, algorithm, DER.bitString(try key.deterministicSignature(for: tbs))])
    }

    private static func setSerialNumber(_ serial: [UInt8], on x509: OpaquePointer) throws {
        let number = try OpenSSLObject(BN_bin2bn(serial, Int32(serial.count), nil), "BN_bin2bn", release: { BN_free($0) })
        defer { withExtendedLifetime(number) {} }
        let integer = try OpenSSLObject(
            BN_to_ASN1_INTEGER(number.pointer, nil), "BN_to_ASN1_INTEGER", release: { ASN1_INTEGER_free($0) })
        defer { withExtendedLifetime(integer) {} }
        try OpenSSL.check(X509_set_serialNumber(x509, integer.pointer), "X509_set_serialNumber")
    }

    /// Builds an X509_NAME from (short name, UTF-8 value) pairs; the caller's X509_set_*_name copies it.
    private static func makeName(_ attributes: [(String, String)]) throws -> OpenSSLObject<OpaquePointer> {
        let name = try OpenSSLObject(X509_NAME_new(), "X509_NAME_new", release: { X509_NAME_free($0) })
        for (field, value) in attributes {
            let bytes = Array(value.utf8)
            guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else {
                throw CryptoError.invalidInput("X509Certificate.make", "empty value for name attribute \(field)")
            }
            try OpenSSL.check(
                X509_NAME_add_entry_by_txt(name.pointer, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0),
                "X509_NAME_add_entry_by_txt(\(field))")
        }
        return name
    }

    private static func setTime(_ date: Date, _ time: UnsafeMutablePointer<ASN1_TIME>?) throws {
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        _ = try OpenSSL.nonNull(ASN1_TIME_set(try OpenSSL.nonNull(time, "X509_getm_notBefore/After"), seconds), "ASN1_TIME_set")
    }

    private static func addBasicConstraints(isCA: Bool, to x509: OpaquePointer) throws {
        let constraints = try OpenSSLObject(
            BASIC_CONSTRAINTS_new(), "BASIC_CONSTRAINTS_new", release: { BASIC_CONSTRAINTS_free($0) })
        defer { withExtendedLifetime(constraints) {} }
        constraints.pointer.pointee.ca = isCA ? 0xFF : 0  // ASN1_BOOLEAN: 0xFF is TRUE
        try OpenSSL.check(
            X509_add1_ext_i2d(x509, NID_basic_constraints, constraints.pointer, 1, UInt(X509V3_ADD_APPEND)),
            "X509_add1_ext_i2d(basicConstraints)")
    }

    private static func addSubjectKeyIdentifier(for key: P256PublicKey, to x509: OpaquePointer) throws {
        let identifier = try makeKeyIdentifier(for: key)
        defer { withExtendedLifetime(identifier) {} }
        try OpenSSL.check(
            X509_add1_ext_i2d(x509, NID_subject_key_identifier, identifier.pointer, 0, UInt(X509V3_ADD_APPEND)),
            "X509_add1_ext_i2d(subjectKeyIdentifier)")
    }

    private static func addAuthorityKeyIdentifier(for issuerKey: P256PublicKey, to x509: OpaquePointer) throws {
        let authorityKeyID = try OpenSSLObject(
            AUTHORITY_KEYID_new(), "AUTHORITY_KEYID_new", release: { AUTHORITY_KEYID_free($0) })
        defer { withExtendedLifetime(authorityKeyID) {} }
        let identifier = try makeKeyIdentifier(for: issuerKey)
        // Hand the identifier over: AUTHORITY_KEYID_free frees its keyid.
        authorityKeyID.pointer.pointee.keyid = try OpenSSL.nonNull(
            ASN1_OCTET_STRING_dup(identifier.pointer), "ASN1_OCTET_STRING_dup")
        try OpenSSL.check(
            X509_add1_ext_i2d(x509, NID_authority_key_identifier, authorityKeyID.pointer, 0, UInt(X509V3_ADD_APPEND)),
            "X509_add1_ext_i2d(authorityKeyIdentifier)")
    }

    /// keyUsage (critical): keyCertSign (bit 5) and cRLSign (bit 6).
    private static func addCAKeyUsage(to x509: OpaquePointer) throws {
        let usage = try OpenSSLObject(ASN1_BIT_STRING_new(), "ASN1_BIT_STRING_new", release: { ASN1_BIT_STRING_free($0) })
        defer { withExtendedLifetime(usage) {} }
        try OpenSSL.check(ASN1_BIT_STRING_set_bit(usage.pointer, 5, 1), "ASN1_BIT_STRING_set_bit")
        try OpenSSL.check(ASN1_BIT_STRING_set_bit(usage.pointer, 6, 1), "ASN1_BIT_STRING_set_bit")
        try OpenSSL.check(
            X509_add1_ext_i2d(x509, NID_key_usage, usage.pointer, 1, UInt(X509V3_ADD_APPEND)),
            "X509_add1_ext_i2d(keyUsage)")
    }

    /// The RFC 5280 method-1 key identifier: SHA-1 of the subjectPublicKey bits (the X9.62 point).
    private static func makeKeyIdentifier(
        for key: P256PublicKey
    ) throws -> OpenSSLObject<UnsafeMutablePointer<ASN1_OCTET_STRING>> {
        let digest = try MessageDigest.hash(key.x962, with: FetchedAlgorithms.sha1)
        let identifier = try OpenSSLObject(
            ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new", release: { ASN1_OCTET_STRING_free($0) })
        try OpenSSL.check(
            ASN1_OCTET_STRING_set(identifier.pointer, digest, Int32(digest.count)), "ASN1_OCTET_STRING_set")
        return identifier
    }

    /// Adds an extension given as a dotted OID and raw extnValue contents.
    private static func addExtension(_ extensionToAdd: X509Extension, to x509: OpaquePointer) throws {
        let object = try OpenSSLObject(
            OBJ_txt2obj(extensionToAdd.oid, 1), "OBJ_txt2obj(\(extensionToAdd.oid))", release: { ASN1_OBJECT_free($0) })
        defer { withExtendedLifetime(object) {} }
        guard X509_get_ext_by_OBJ(x509, object.pointer, -1) < 0 else {
            throw CryptoError.invalidInput("X509Certificate.make", "duplicate extension \(extensionToAdd.oid)")
        }
        guard extensionToAdd.derValue.count <= Int(Int32.max) else {
            throw CryptoError.invalidInput("X509Certificate.make", "extension \(extensionToAdd.oid) too large")
        }
        let value = try OpenSSLObject(
            ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new", release: { ASN1_OCTET_STRING_free($0) })
        defer { withExtendedLifetime(value) {} }
        try OpenSSL.withBytes(extensionToAdd.derValue) { bytes, count in
            try OpenSSL.check(ASN1_OCTET_STRING_set(value.pointer, bytes, Int32(count)), "ASN1_OCTET_STRING_set")
        }
        let created = try OpenSSLObject(
            X509_EXTENSION_create_by_OBJ(nil, object.pointer, extensionToAdd.critical ? 1 : 0, value.pointer),
            "X509_EXTENSION_create_by_OBJ", release: { X509_EXTENSION_free($0) })
        defer { withExtendedLifetime(created) {} }
        try OpenSSL.check(X509_add_ext(x509, created.pointer, -1), "X509_add_ext")
    }
}
