/// Why a CBOR value is not the EC2 P-256 COSE_Key CTAP exchanges (``COSEPublicKey/init(cbor:)``).
/// Each side turns it into its own answer: the card into a CTAP status, the host into a
/// malformed-response error that carries ``description``.
public enum COSEKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value is not a map.
    case notAMap
    /// `kty` is missing or not EC2 (2).
    case keyTypeNotEC2
    /// `crv` is missing or not P-256 (1).
    case curveNotP256
    /// `x` or `y` is missing, not a byte string, or not 32 bytes.
    case coordinatesNot32Bytes
    /// The coordinates are not a point on P-256.
    case pointNotOnCurve

    /// What is wrong, as a phrase: `a COSE key whose curve is not P-256`.
    public var description: String {
        switch self {
        case .notAMap: "a COSE key that is not a map"
        case .keyTypeNotEC2: "a COSE key whose kty is not EC2"
        case .curveNotP256: "a COSE key whose curve is not P-256"
        case .coordinatesNot32Bytes: "a COSE key without 32-byte x and y coordinates"
        case .pointNotOnCurve: "a COSE key whose point is not on P-256"
        }
    }
}
