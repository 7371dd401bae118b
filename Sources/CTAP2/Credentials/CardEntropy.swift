import CardCrypto

/// Where an emulated card gets the values a real card draws at random.
public enum CardEntropy: Sendable, Equatable {
    /// OpenSSL's CSPRNG and randomised ECDSA: the default, and the only choice for serving a
    /// card that guards anything real.
    case system
    /// A reproducible card: every random value (card secrets, credential keys and IDs,
    /// key-agreement keys, PIN tokens, IVs) comes from an HMAC-SHA-256 stream keyed by the seed,
    /// and ECDSA nonces follow RFC 6979. The same seed, image and commands give byte-identical
    /// responses. For tests and transcripts only: anyone who knows the seed knows every key.
    case seeded([UInt8])
}
