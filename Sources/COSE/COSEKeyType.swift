import CardCrypto

/// A COSE key type (`kty`, label 1; RFC 9052 §7, RFC 8230 §4): the number a COSE_Key gives the
/// kind of key CardCrypto calls ``PublicKeyType``.
public enum COSEKeyType: Int, Sendable, CaseIterable {
    /// Octet key pair: Ed25519 and the other RFC 8037 curves.
    case okp = 1
    /// Elliptic curve with x and y coordinates.
    case ec2 = 2
    /// RSA.
    case rsa = 3

    /// The COSE key type of a key of `type`.
    public init(_ type: PublicKeyType) {
        switch type {
        case .okp: self = .okp
        case .ec2: self = .ec2
        case .rsa: self = .rsa
        }
    }

    /// The kind of key this type is.
    public var publicKeyType: PublicKeyType {
        switch self {
        case .okp: .okp
        case .ec2: .ec2
        case .rsa: .rsa
        }
    }
}
