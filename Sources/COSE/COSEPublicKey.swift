import CBOR
import CardCrypto

/// A P-256 public key as a COSE_Key (RFC 9053 §7.1.1, CTAP 2.1 §6.5.6): the card's and the
/// platform's key-agreement keys, and ES256 credential keys in attested credential data.
///
/// The one codec of these keys, for the card side (CTAP2), the host side (CTAPClient) and the
/// transcript checks alike: it knows CBOR and the key, nothing of either side.
public struct COSEPublicKey: Equatable, Sendable {
    /// COSE algorithm: -7 (ES256) for credential keys, -25 (ECDH-ES + HKDF-256) for key agreement.
    public var algorithm: Int
    /// The public key.
    public var publicKey: P256PublicKey

    /// COSE algorithm ES256.
    public static let es256 = SignatureAlgorithm.es256.rawValue
    /// COSE algorithm ECDH-ES + HKDF-256, the value CTAP puts in every key agreement key whatever
    /// the PIN/UV auth protocol.
    public static let ecdhESHKDF256 = -25

    /// A COSE key for `publicKey`.
    public init(algorithm: Int, publicKey: P256PublicKey) {
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    /// `publicKey` as a key-agreement key (`alg` -25).
    public static func keyAgreement(_ publicKey: P256PublicKey) -> COSEPublicKey {
        COSEPublicKey(algorithm: ecdhESHKDF256, publicKey: publicKey)
    }

    /// Reads an EC2 P-256 COSE_Key map: kty 2, crv 1, 32-byte x and y on the curve. `alg` is
    /// not checked (0 when absent): what it must be depends on where the key stands.
    public init(cbor: CBORValue) throws(COSEKeyError) {
        guard let map = cbor.mapValue else { throw .notAMap }
        guard map[int: COSEKeyLabel.keyType]?.intValue == COSEKeyType.ec2.rawValue else { throw .keyTypeNotEC2 }
        guard map[int: COSEKeyLabel.curve]?.intValue == COSEEllipticCurve.p256.rawValue else { throw .curveNotP256 }
        guard let x = map[int: COSEKeyLabel.x]?.bytesValue, x.count == 32,
              let y = map[int: COSEKeyLabel.y]?.bytesValue, y.count == 32 else {
            throw .coordinatesNot32Bytes
        }
        do {
            publicKey = try P256PublicKey(x: x, y: y)
        } catch {
            throw .pointNotOnCurve
        }
        algorithm = map[int: COSEKeyLabel.algorithm]?.intValue ?? 0
    }

    /// The COSE_Key map: `{1: 2, 3: alg, -1: 1, -2: x, -3: y}`.
    public var cbor: CBORValue {
        .ec2Key(algorithm: algorithm, curve: .p256, x: publicKey.x, y: publicKey.y)
    }
}
