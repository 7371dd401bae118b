/// The extension identifiers of CTAP 2.1 §12 and CTAP 2.2: the text keys of a request's
/// `extensions` map, of the extension outputs in authenticator data, and of getInfo's
/// `extensions` list.
public enum ExtensionIdentifier: String, Sendable, CaseIterable {
    /// Credential protection policy (§12.1).
    case credProtect
    /// A small blob stored with a discoverable credential (§12.2).
    case credBlob
    /// The key of a credential's large blob (§12.3).
    case largeBlobKey
    /// The minimum PIN length, for the RPs allowed to read it (§12.4).
    case minPinLength
    /// A symmetric secret per credential, read with getAssertion (§12.5).
    case hmacSecret = "hmac-secret"
    /// hmac-secret evaluated at makeCredential (CTAP 2.2).
    case hmacSecretMakeCredential = "hmac-secret-mc"
    /// Whether the credential may be used for third-party payment (CTAP 2.2).
    case thirdPartyPayment
    /// The user verification methods used (WebAuthn Level 2 §10.3; an authenticator
    /// extension, answered in authenticator data).
    case uvm
}
