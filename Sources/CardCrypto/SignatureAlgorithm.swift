/// A signature algorithm a credential key can have, by its COSE identifier (IANA "COSE
/// Algorithms" registry), as a relying party names it in `pubKeyCredParams` and as the `alg`
/// (label 3) of the credential's COSE_Key.
///
/// Each algorithm fixes the key type and the hash: a key of one algorithm never signs for another
/// (an RSA key is either RS256 or PS256, an EC key's curve decides which ES algorithm it is).
public enum SignatureAlgorithm: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// ECDSA on P-256 with SHA-256 (COSE -7), the FIDO2 baseline.
    case es256 = -7
    /// EdDSA, here pure Ed25519 (COSE -8; RFC 8032).
    case edDSA = -8
    /// ECDSA on P-384 with SHA-384 (COSE -35).
    case es384 = -35
    /// ECDSA on P-521 with SHA-512 (COSE -36).
    case es512 = -36
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (COSE -37; RFC 8230).
    case ps256 = -37
    /// ECDSA on secp256k1 with SHA-256 (COSE -47; RFC 8812).
    case es256k = -47
    /// RSASSA-PKCS1-v1_5 with SHA-256 (COSE -257; RFC 8812), 2048-bit keys when generated.
    case rs256 = -257

    /// The registry name, e.g. `"ES384"`, `"EdDSA"`, `"ES256K"`.
    public var name: String {
        switch self {
        case .es256: "ES256"
        case .edDSA: "EdDSA"
        case .es384: "ES384"
        case .es512: "ES512"
        case .ps256: "PS256"
        case .es256k: "ES256K"
        case .rs256: "RS256"
        }
    }

    /// The registry name.
    public var description: String { name }

    /// The algorithm a registry name (`"EdDSA"`, any case) or a COSE number (`"-8"`) stands for.
    public init?(name: String) {
        if let number = Int(name), let algorithm = SignatureAlgorithm(rawValue: number) {
            self = algorithm
            return
        }
        guard let algorithm = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = algorithm
    }

    /// The COSE key type a key of this algorithm has.
    public var keyType: PublicKeyType {
        switch self {
        case .es256, .es384, .es512, .es256k: .ec2
        case .edDSA: .okp
        case .rs256, .ps256: .rsa
        }
    }

    /// The COSE curve of an EC2 or OKP key of this algorithm; nil for RSA.
    public var curve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        case .es256k: .secp256k1
        case .edDSA: .ed25519
        case .rs256, .ps256: nil
        }
    }

    /// The ECDSA curve (with its group and hash) of an ES algorithm; nil otherwise.
    var ecCurve: ECCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        case .es256k: .secp256k1
        case .edDSA, .rs256, .ps256: nil
        }
    }
}
