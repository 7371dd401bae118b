import CTAP2

extension CardMutation {
    /// Whether applying this change to `state` retires a secret that must not outlive it in the
    /// card image: a reset (the master secret that unwraps every non-discoverable credential ID,
    /// the PIN hash, every credential's private key), a deleted (or replaced) credential's
    /// private key, or the hash of a PIN that a new one replaces (LEFT(SHA-256(PIN), 16) gives
    /// a short PIN away to anyone who tries them all). The journal record of such a change still
    /// leaves the old secret in the records before it, so ``CardImageFile`` rewrites the image
    /// as a snapshot of the new state right after it.
    func retiresSecret(of state: CardState) -> Bool {
        switch self {
        case .reset, .removeCredential:
            true
        case .setPIN, .clearPIN:
            state.pinHash != nil
        case .setPINRetries, .setSignatureCounter, .addCredential, .updateUser, .setPINPolicy, .setAlwaysUv,
             .enableEnterpriseAttestation, .setLargeBlobArray, .setPersistentToken:
            false
        }
    }
}
