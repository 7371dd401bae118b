/// The kind of a credential's public key, which decides its parameters (``COSEKeyParameters``).
public enum PublicKeyType: Sendable, CaseIterable {
    /// An octet key pair: Ed25519 and the other RFC 8037 curves, one public value `x`.
    case okp
    /// An elliptic-curve point with x and y coordinates (the ES algorithms' curves).
    case ec2
    /// RSA: a modulus and a public exponent.
    case rsa
}
