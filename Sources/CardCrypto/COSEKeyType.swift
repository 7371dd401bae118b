/// A COSE key type (`kty`, label 1; RFC 9052 §7, RFC 8230 §4).
public enum COSEKeyType: Int, Sendable, CaseIterable {
    /// Octet key pair: Ed25519 and the other RFC 8037 curves.
    case okp = 1
    /// Elliptic curve with x and y coordinates.
    case ec2 = 2
    /// RSA.
    case rsa = 3
}
