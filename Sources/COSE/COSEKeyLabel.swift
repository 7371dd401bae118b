/// The labels of a COSE_Key map's members (RFC 9052 §7.1, RFC 9053 §7.1–§7.2, RFC 8230 §4): the
/// integer keys every COSE key this project writes or reads uses. A label's meaning after `alg`
/// depends on the key type, so EC2/OKP and RSA each have their names for -1 and -2.
public enum COSEKeyLabel {
    /// `kty` (1): the key type, a ``COSEKeyType`` value.
    public static let keyType = 1
    /// `alg` (3): the COSE algorithm the key is for.
    public static let algorithm = 3
    /// `crv` (-1) of an EC2 or OKP key: a ``COSEEllipticCurve`` value.
    public static let curve = -1
    /// `x` (-2) of an EC2 or OKP key: the x-coordinate, or the whole OKP public key.
    public static let x = -2
    /// `y` (-3) of an EC2 key: the y-coordinate.
    public static let y = -3
    /// `n` (-1) of an RSA key: the modulus.
    public static let modulus = -1
    /// `e` (-2) of an RSA key: the public exponent.
    public static let exponent = -2
}
