import CardCrypto

/// What a credential's private key is made from.
enum CredentialKeyMaterial: Equatable, Sendable {
    /// A P-256 scalar (ES256), as the first credential IDs and card images carry it.
    case p256Scalar([UInt8])
    /// A 32-byte seed the key of `algorithm` derives from (see ``makeKey()``).
    case seed(SignatureAlgorithm, [UInt8])
    /// The key itself, in CardCrypto's compact form for `algorithm`.
    case key(SignatureAlgorithm, [UInt8])

    init?(kind: UInt8, algorithm: SignatureAlgorithm, bytes: [UInt8]) {
        switch kind {
        case 0 where bytes.count == 32: self = .seed(algorithm, bytes)
        case 1 where algorithm == .es256 && bytes.count == 32: self = .p256Scalar(bytes)
        case 1: self = .key(algorithm, bytes)
        default: return nil
        }
    }

    /// The material for a stored private key of `algorithm` (ES256 keys are their scalar).
    init(algorithm: SignatureAlgorithm, privateKeyBytes: [UInt8]) {
        self = algorithm == .es256 ? .p256Scalar(privateKeyBytes) : .key(algorithm, privateKeyBytes)
    }

    var algorithm: SignatureAlgorithm {
        switch self {
        case .p256Scalar: .es256
        case .seed(let algorithm, _), .key(let algorithm, _): algorithm
        }
    }

    /// 0 for a seed, 1 for a key (the wrapped form's key-kind byte).
    var kind: UInt8 {
        if case .seed = self { return 0 }
        return 1
    }

    var bytes: [UInt8] {
        switch self {
        case .p256Scalar(let bytes), .seed(_, let bytes), .key(_, let bytes): bytes
        }
    }

    /// The key. A seed expands through an HMAC-SHA-256 stream (the card's deterministic stream
    /// keyed by the seed), so the same seed always gives the same key of its algorithm.
    func makeKey() throws -> CredentialPrivateKey {
        switch self {
        case .p256Scalar(let scalar):
            return CredentialPrivateKey(try P256PrivateKey(rawScalar: scalar))
        case .key(let algorithm, let bytes):
            return try CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: bytes)
        case .seed(let algorithm, let seed):
            var stream = CardRandom(.seeded(seed))
            return try CredentialPrivateKey(algorithm: algorithm, randomBytes: { stream.bytes($0) })
        }
    }
}
