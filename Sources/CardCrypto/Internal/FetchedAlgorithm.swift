/// An OpenSSL algorithm implementation fetched once from the default provider
/// (`EVP_MD`, `EVP_MAC`, `EVP_KDF` or `EVP_CIPHER`), or another object shared read-only (the
/// P-256 `EC_GROUP`, the HMAC-SHA-256 context template).
///
/// `@unchecked Sendable` is sound because a fetched algorithm is an immutable,
/// reference-counted object that OpenSSL documents as shareable between
/// threads, and this wrapper never mutates it; it only frees it in `deinit`.
final class FetchedAlgorithm: @unchecked Sendable {
    /// The fetched algorithm; valid for the lifetime of this object.
    let pointer: OpaquePointer
    private let release: @Sendable (OpaquePointer) -> Void

    /// Takes ownership of a fetched algorithm; traps if the fetch returned NULL,
    /// since that means libcrypto's default provider is unusable.
    init(_ pointer: OpaquePointer?, name: String, release: @escaping @Sendable (OpaquePointer) -> Void) {
        guard let pointer else {
            fatalError("CardCrypto: \(CryptoError.openSSL("fetch \(name)"))")
        }
        self.pointer = pointer
        self.release = release
    }

    deinit {
        release(pointer)
    }
}
