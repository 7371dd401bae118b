/// A COSE key type (`kty`, label 1; RFC 9052 §7, RFC 8230 §4).
public enum COSEKeyType: Int, Sendable, CaseIterable {
    /// Octet key pair: Ed25519 and the other RFC 8037 curves.
    case okp = 1
    /// Elliptic curve with x and y coordinates.
    case ec2 = 2
    /// RSA.
    case rsa = 3
}

/// A COSE elliptic curve (`crv`, label -1; IANA "COSE Elliptic Curves" registry) that a
/// credential key can use.
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

    /// The registry name, e.g. `"P-384"`.
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

/// The key parameters of a credential's COSE_Key, as plain values, for the CBOR layer to encode
/// (with `kty` from `keyType` and `alg` from the key's `SignatureAlgorithm`) or to fill in
/// from a decoded COSE_Key. CardCrypto itself knows no CBOR.
public enum COSEKeyParameters: Sendable, Hashable {
    /// kty 2 (EC2): the curve (`crv`, -1) and the affine coordinates `x` (-2) and `y` (-3), each
    /// exactly `curve.coordinateByteCount` big-endian bytes, left-padded with zeros.
    case ec2(curve: COSEEllipticCurve, x: [UInt8], y: [UInt8])
    /// kty 1 (OKP): the curve (`crv`, -1) and the public key `x` (-2), 32 bytes for Ed25519.
    case okp(curve: COSEEllipticCurve, x: [UInt8])
    /// kty 3 (RSA): the modulus `n` (-1) and public exponent `e` (-2), big-endian without leading zeros.
    case rsa(n: [UInt8], e: [UInt8])

    /// The COSE key type of these parameters.
    public var keyType: COSEKeyType {
        switch self {
        case .ec2: .ec2
        case .okp: .okp
        case .rsa: .rsa
        }
    }
}
