/// The key parameters of a credential's COSE_Key, as plain values, for the COSE module to encode
/// (`CBORValue(coseKey:)`, with `kty` from `keyType` and `alg` from the key's
/// `SignatureAlgorithm`) or to fill in from a decoded COSE_Key. CardCrypto itself knows no CBOR.
public enum COSEKeyParameters: Sendable, Hashable {
    /// kty 2 (EC2): the curve (`crv`, -1) and the affine coordinates `x` (-2) and `y` (-3), each
    /// exactly `curve.coordinateByteCount` big-endian bytes, left-padded with zeros.
    case ec2(curve: EllipticCurve, x: [UInt8], y: [UInt8])
    /// kty 1 (OKP): the curve (`crv`, -1) and the public key `x` (-2), 32 bytes for Ed25519.
    case okp(curve: EllipticCurve, x: [UInt8])
    /// kty 3 (RSA): the modulus `n` (-1) and public exponent `e` (-2), big-endian without leading zeros.
    case rsa(n: [UInt8], e: [UInt8])

    /// The kind of key these parameters describe.
    public var keyType: PublicKeyType {
        switch self {
        case .ec2: .ec2
        case .okp: .okp
        case .rsa: .rsa
        }
    }
}
