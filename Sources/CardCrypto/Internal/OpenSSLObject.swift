/// Owns one OpenSSL object and frees it exactly once, in `deinit`.
///
/// Swift may end an object's lifetime right after its last use, which can be
/// before a C call that still uses the raw `pointer` has returned. Code that
/// reads `pointer` therefore pins the owner with
/// `defer { withExtendedLifetime(owner) {} }` right after creating it.
///
/// Short-lived objects (contexts, BIOs, parameter arrays) use it as it is; the long-lived ones
/// CardCrypto's values keep (``EVPPKey``, ``X509Object``) are subclasses that name their C type's
/// free function and why sharing them between threads is sound.
class OpenSSLObject<Pointer> {
    /// The owned C pointer; valid for as long as this object is alive.
    let pointer: Pointer
    private let release: (Pointer) -> Void

    /// Takes ownership of `pointer`, or throws the OpenSSL error of `function`
    /// when the allocating call returned NULL.
    convenience init(_ pointer: Pointer?, _ function: String, release: @escaping (Pointer) -> Void) throws {
        guard let pointer else { throw CryptoError.openSSL(function) }
        self.init(taking: pointer, release: release)
    }

    /// Takes ownership of `pointer`, which `release` frees.
    init(taking pointer: Pointer, release: @escaping (Pointer) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit {
        release(pointer)
    }
}
