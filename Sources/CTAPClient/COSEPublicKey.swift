import CBOR
import CardCrypto
import FIDOWire

/// A P-256 public key as a COSE_Key (RFC 9053 §7.1.1, CTAP 2.1 §6.5.6): what the card sends as its
/// key agreement key and in attested credential data, and what the platform sends back.
public struct COSEPublicKey: Equatable, Sendable {
    /// COSE algorithm: -7 (ES256) for credential keys, -25 (ECDH-ES + HKDF-256) for key agreement.
    public var algorithm: Int
    /// The public key.
    public var publicKey: P256PublicKey

    /// COSE algorithm ES256.
    public static let es256 = -7
    /// COSE algorithm ECDH-ES + HKDF-256, the value CTAP puts in every key agreement key whatever
    /// the PIN/UV auth protocol.
    public static let ecdhESHKDF256 = -25

    /// A COSE key for `publicKey`.
    public init(algorithm: Int, publicKey: P256PublicKey) {
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    /// Reads an EC2 P-256 COSE_Key map: kty 2, crv 1, 32-byte x and y on the curve.
    public init(cbor: CBORValue) throws(CTAPClientError) {
        guard let map = cbor.mapValue else { throw .malformedResponse("a COSE key that is not a map") }
        guard map[int: 1]?.intValue == 2 else { throw .malformedResponse("a COSE key whose kty is not EC2") }
        guard map[int: -1]?.intValue == 1 else { throw .malformedResponse("a COSE key whose curve is not P-256") }
        guard let x = map[int: -2]?.bytesValue, x.count == 32, let y = map[int: -3]?.bytesValue, y.count == 32 else {
            throw .malformedResponse("a COSE key without 32-byte x and y coordinates")
        }
        do {
            publicKey = try P256PublicKey(x: x, y: y)
        } catch {
            throw .malformedResponse("a COSE key whose point is not on P-256")
        }
        algorithm = map[int: 3]?.intValue ?? 0
    }

    /// The COSE_Key map.
    public var cbor: CBORValue {
        var map = CBORMap()
        map[.int(1)] = .int(2)
        map[.int(3)] = .int(algorithm)
        map[.int(-1)] = .int(1)
        map[.int(-2)] = .bytes(publicKey.x)
        map[.int(-3)] = .bytes(publicKey.y)
        return .map(map)
    }
}
