import CBOR
import CardCrypto

extension CBORValue {
    /// A credential public key of any algorithm as its COSE_Key map (RFC 9053 §7, RFC 8230 §4,
    /// RFC 8812), as authenticator data and credential management carry it: EC2
    /// `{1: 2, 3: alg, -1: crv, -2: x, -3: y}`, OKP `{1: 1, 3: alg, -1: crv, -2: x}`, RSA
    /// `{1: 3, 3: alg, -1: n, -2: e}`.
    public init(coseKey key: CredentialPublicKey) {
        let algorithm = key.algorithm.rawValue
        switch key.coseKey {
        case .ec2(let curve, let x, let y):
            self = .ec2Key(algorithm: algorithm, curve: COSEEllipticCurve(curve), x: x, y: y)
        case .okp(let curve, let x):
            self = .map([.int(COSEKeyLabel.keyType): .int(COSEKeyType.okp.rawValue), .int(COSEKeyLabel.algorithm): .int(algorithm),
                         .int(COSEKeyLabel.curve): .int(COSEEllipticCurve(curve).rawValue), .int(COSEKeyLabel.x): .bytes(x)])
        case .rsa(let n, let e):
            self = .map([.int(COSEKeyLabel.keyType): .int(COSEKeyType.rsa.rawValue), .int(COSEKeyLabel.algorithm): .int(algorithm),
                         .int(COSEKeyLabel.modulus): .bytes(n), .int(COSEKeyLabel.exponent): .bytes(e)])
        }
    }

    /// An EC2 COSE_Key map, members in canonical order.
    static func ec2Key(algorithm: Int, curve: COSEEllipticCurve, x: [UInt8], y: [UInt8]) -> CBORValue {
        .map([.int(COSEKeyLabel.keyType): .int(COSEKeyType.ec2.rawValue), .int(COSEKeyLabel.algorithm): .int(algorithm),
              .int(COSEKeyLabel.curve): .int(curve.rawValue), .int(COSEKeyLabel.x): .bytes(x), .int(COSEKeyLabel.y): .bytes(y)])
    }
}
