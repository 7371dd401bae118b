internal import COpenSSL

/// A P-256 public key, validated to be on the curve.
///
/// Equality and hashing compare the uncompressed point. The OpenSSL key object
/// is built once, at initialization, and reused by every verification.
public struct P256PublicKey: Sendable, Hashable {
    /// The size of one affine coordinate in bytes (32).
    public static let coordinateByteCount = 32
    /// The size of the uncompressed X9.62 encoding in bytes (65).
    public static let x962ByteCount = 65

    /// The uncompressed X9.62 point `04 || x || y` (65 bytes).
    public let x962: [UInt8]
    /// The imported OpenSSL key.
    let key: EVPPKey

    /// Creates a key from its affine coordinates (32 big-endian bytes each); throws if the point is not on the curve.
    public init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw CryptoError.invalidInput("P256PublicKey", "coordinates must be 32 bytes each, got \(x.count) and \(y.count)")
        }
        try self.init(x962: [0x04] + x + y)
    }

    /// Creates a key from the 65-byte uncompressed X9.62 encoding `04 || x || y`;
    /// throws for any other length or form, or if the point is not on the curve.
    public init(x962 bytes: [UInt8]) throws {
        guard bytes.count == Self.x962ByteCount, bytes[0] == 0x04 else {
            throw CryptoError.invalidInput("P256PublicKey", "expected a 65-byte uncompressed point (04 || x || y)")
        }
        let key = try EVPPKey.importP256(privateScalar: nil, publicPoint: bytes)
        // The importer already rejects coordinates >= p and points off the curve;
        // check again explicitly so validation never depends on importer details.
        let context = try key.makeContext()
        defer { withExtendedLifetime(context) {} }
        guard EVP_PKEY_public_check_quick(context.pointer) == 1 else {
            throw CryptoError.openSSL("EVP_PKEY_public_check_quick")
        }
        self.x962 = bytes
        self.key = key
    }

    /// Creates a key from a DER SubjectPublicKeyInfo (RFC 5480) holding a P-256 point;
    /// throws for other algorithms or curves, trailing bytes, or an invalid point.
    public init(derSubjectPublicKeyInfo der: [UInt8]) throws {
        let decoded = try EVPPKey.parseSubjectPublicKeyInfo(der)
        guard decoded.isP256 else {
            throw CryptoError.invalidInput("P256PublicKey", "SubjectPublicKeyInfo is not an EC key on P-256")
        }
        let (x, y) = try decoded.publicCoordinates()
        try self.init(x: x, y: y)
    }

    /// The affine x-coordinate (32 big-endian bytes).
    public var x: [UInt8] { Array(x962[1...32]) }

    /// The affine y-coordinate (32 big-endian bytes).
    public var y: [UInt8] { Array(x962[33...64]) }

    /// The DER SubjectPublicKeyInfo (RFC 5480: id-ecPublicKey, prime256v1, uncompressed point).
    public var derSubjectPublicKeyInfo: [UInt8] {
        OpenSSL.mustSucceed { try key.derSubjectPublicKeyInfo() }
    }

    /// Verify a DER ECDSA-SHA256 signature over `message`. Never throws; malformed signature => false.
    public func isValidSignature(_ derSignature: [UInt8], for message: [UInt8]) -> Bool {
        isValidSignature(derSignature, forDigest: SHA256.hash(message))
    }

    /// Verify a DER ECDSA signature over a precomputed 32-byte SHA-256 `digest`.
    /// Never throws; a malformed signature, non-canonical DER or a digest of another length gives false.
    public func isValidSignature(_ derSignature: [UInt8], forDigest digest: [UInt8]) -> Bool {
        guard digest.count == SHA256.byteCount, !derSignature.isEmpty,
            derSignature.count <= P256PrivateKey.maximumSignatureByteCount
        else { return false }
        defer { ERR_clear_error() }
        guard let context = try? key.makeContext() else { return false }
        defer { withExtendedLifetime(context) {} }
        guard EVP_PKEY_verify_init(context.pointer) == 1 else { return false }
        return EVP_PKEY_verify(context.pointer, derSignature, derSignature.count, digest, digest.count) == 1
    }

    /// Equal when the points are equal.
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x962 == rhs.x962
    }

    /// Hashes the uncompressed point.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(x962)
    }
}
