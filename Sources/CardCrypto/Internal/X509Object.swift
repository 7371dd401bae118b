internal import COpenSSL

/// Owns one parsed `X509` certificate object.
///
/// `@unchecked Sendable` is sound because the certificate is never modified
/// after parsing; CardCrypto only reads it (accessors, `X509_verify`), and
/// OpenSSL guards its lazily computed extension cache with the object's own
/// lock. The pointer is freed only in `deinit`.
final class X509Object: OpenSSLObject<OpaquePointer>, @unchecked Sendable {
    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        super.init(taking: pointer, release: { X509_free($0) })
    }

    /// Parses exactly one DER certificate, rejecting trailing bytes.
    static func parse(der: [UInt8]) throws -> X509Object {
        try OpenSSL.decodeDER(der, "d2i_X509", what: "the certificate") { cursor, count in
            X509Object(taking: try OpenSSL.nonNull(d2i_X509(nil, cursor, count), "d2i_X509"))
        }
    }

    /// The DER encoding (`i2d_X509`).
    func derEncoding() throws -> [UInt8] {
        try Self.derEncoding(of: pointer)
    }

    /// The DER encoding of any `X509` object, owned or not (`i2d_X509`).
    static func derEncoding(of pointer: OpaquePointer) throws -> [UInt8] {
        try OpenSSL.encodeDER("i2d_X509") { i2d_X509(pointer, $0) }
    }

    /// The extension with the dotted `oid`, or nil when absent or the OID is malformed.
    /// The result points into the certificate and is valid while this object lives.
    func findExtension(oid: String) -> OpaquePointer? {
        guard let object = try? OpenSSLObject(OBJ_txt2obj(oid, 1), "OBJ_txt2obj", release: { ASN1_OBJECT_free($0) })
        else { return nil }
        defer { withExtendedLifetime(object) {} }
        let index = X509_get_ext_by_OBJ(pointer, object.pointer, -1)
        guard index >= 0 else { return nil }
        return X509_get_ext(pointer, index)
    }

    /// A name (subject or issuer) on one line, e.g. `C=US, O=Example, CN=Name`.
    static func describe(name: OpaquePointer?) -> String {
        guard let name else { return "" }
        // Like XN_FLAG_ONELINE without spaces around "=", and with UTF-8 kept as
        // is rather than escaped (the composite macros are not importable).
        let flags = UInt(
            ASN1_STRFLGS_ESC_2253 | ASN1_STRFLGS_ESC_CTRL | ASN1_STRFLGS_UTF8_CONVERT | ASN1_STRFLGS_DUMP_UNKNOWN
                | ASN1_STRFLGS_DUMP_DER | XN_FLAG_SEP_CPLUS_SPC | XN_FLAG_FN_SN)
        return OpenSSL.mustSucceed {
            let bio = try OpenSSL.makeMemoryBIO()
            defer { withExtendedLifetime(bio) {} }
            guard X509_NAME_print_ex(bio.pointer, name, 0, flags) >= 0 else {
                throw CryptoError.openSSL("X509_NAME_print_ex")
            }
            return OpenSSL.contents(ofMemoryBIO: bio.pointer)
        }
    }
}
