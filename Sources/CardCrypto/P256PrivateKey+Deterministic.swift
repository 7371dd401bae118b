extension P256PrivateKey {
    /// ECDSA-SHA256 with the deterministic nonce of RFC 6979 §3.2 (HMAC-SHA-256 DRBG over the
    /// private key and the message hash); DER signature. The same key and message always give
    /// the same signature, which is what a deterministic (replayable) card needs. OpenSSL 3.0 has
    /// no deterministic ECDSA, so the signing equation is computed by CardCrypto with OpenSSL's
    /// big numbers (the same code signs ES384, ES512 and ES256K for `CredentialPrivateKey`).
    public func deterministicSignature(for message: [UInt8]) throws -> [UInt8] {
        try DeterministicECDSA.signature(digest: SHA256.hash(message), scalar: rawScalar, curve: .p256)
    }
}
