import FIDOWire

/// The user a credential is for (WebAuthn's user entity, the type the client shares).
public typealias CredentialUser = UserEntity

extension CredentialUser {
    /// A user whose handle is the UTF-8 of `handle` and whose name is `name` (default: the
    /// handle itself) — the usual shape in tests.
    public init(_ handle: String, name: String? = nil, displayName: String? = nil) {
        self.init(id: Array(handle.utf8), name: name ?? handle, displayName: displayName)
    }
}
