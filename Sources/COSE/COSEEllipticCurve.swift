import CardCrypto

/// A COSE elliptic curve (`crv`, label -1; IANA "COSE Elliptic Curves" registry): the number a
/// COSE_Key gives each ``EllipticCurve`` a credential key can use.
public enum COSEEllipticCurve: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// NIST P-256 (secp256r1), EC2.
    case p256 = 1
    /// NIST P-384 (secp384r1), EC2.
    case p384 = 2
    /// NIST P-521 (secp521r1), EC2.
    case p521 = 3
    /// Ed25519, OKP.
    case ed25519 = 6
    /// secp256k1, EC2 (RFC 8812).
    case secp256k1 = 8

    /// The COSE number of `curve`.
    public init(_ curve: EllipticCurve) {
        switch curve {
        case .p256: self = .p256
        case .p384: self = .p384
        case .p521: self = .p521
        case .ed25519: self = .ed25519
        case .secp256k1: self = .secp256k1
        }
    }

    /// The curve this number names.
    public var curve: EllipticCurve {
        switch self {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        case .ed25519: .ed25519
        case .secp256k1: .secp256k1
        }
    }

    /// The registry name, e.g. `"P-384"`.
    public var description: String { curve.description }
}
