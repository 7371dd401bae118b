/// An elliptic curve that a credential key can use.
public enum EllipticCurve: Sendable, CaseIterable, CustomStringConvertible {
    /// NIST P-256 (secp256r1), EC2.
    case p256
    /// NIST P-384 (secp384r1), EC2.
    case p384
    /// NIST P-521 (secp521r1), EC2.
    case p521
    /// Ed25519, OKP.
    case ed25519
    /// secp256k1, EC2 (RFC 8812).
    case secp256k1

    /// The curve's usual name, as the COSE registry writes it, e.g. `"P-384"`.
    public var description: String {
        switch self {
        case .p256: "P-256"
        case .p384: "P-384"
        case .p521: "P-521"
        case .ed25519: "Ed25519"
        case .secp256k1: "secp256k1"
        }
    }

    /// The length in bytes of one coordinate (EC2) or of the public key (OKP): 32, 48 or 66.
    public var coordinateByteCount: Int {
        switch self {
        case .p256, .secp256k1, .ed25519: 32
        case .p384: 48
        case .p521: 66
        }
    }
}
