/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3): the user a credential is for, as a request
/// names them and the card keeps and returns them. The emulated card and the client share it
/// (CTAP2 calls it `CredentialUser`).
public struct UserEntity: Hashable, Sendable {
    /// The user handle: opaque bytes chosen by the relying party, at most 64.
    public var id: [UInt8]
    /// The account name, e.g. `alice@example.com`.
    public var name: String?
    /// The name shown to people, e.g. `Alice`.
    public var displayName: String?

    /// The user with handle `id`.
    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}
