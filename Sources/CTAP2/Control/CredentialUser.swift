/// The user a credential is for, as WebAuthn's user entity names them (WebAuthn §5.4.3).
public struct CredentialUser: Hashable, Sendable {
    /// The user handle: opaque bytes chosen by the relying party, at most 64.
    public var id: [UInt8]
    /// The account name, e.g. `alice@example.com`.
    public var name: String?
    /// The name shown to people, e.g. `Alice`.
    public var displayName: String?

    /// A user with handle `id`.
    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    /// A user whose handle is the UTF-8 of `handle` and whose name is `name` (default: the
    /// handle itself) — the usual shape in tests.
    public init(_ handle: String, name: String? = nil, displayName: String? = nil) {
        self.init(id: Array(handle.utf8), name: name ?? handle, displayName: displayName)
    }
}
