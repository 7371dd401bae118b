/// An X.509 v3 extension to add when creating a certificate.
public struct X509Extension: Sendable, Hashable {
    /// The extension's object identifier in dotted form, e.g. `"1.3.6.1.4.1.45724.1.1.4"`.
    public let oid: String
    /// Whether the extension is marked critical.
    public let critical: Bool
    /// The DER that goes inside the extnValue OCTET STRING.
    public let derValue: [UInt8]

    /// Creates an extension. `derValue` = DER that goes INSIDE extnValue OCTET STRING.
    ///
    /// The OID is checked when the certificate is made (`X509Certificate.make`).
    public init(oid: String, critical: Bool, derValue: [UInt8]) {
        self.oid = oid
        self.critical = critical
        self.derValue = derValue
    }
}
