/// The option identifiers of CTAP 2.1 §6.4 and CTAP 2.2: the keys of getInfo's `options` map and,
/// for `rk`, `up` and `uv`, of a makeCredential's or getAssertion's `options` (§6.1, §6.2).
public enum AuthenticatorOption: String, Sendable, CaseIterable {
    /// A platform device, not a roaming authenticator.
    case plat
    /// Discoverable credentials; in a request, make one.
    case rk
    /// A clientPIN is supported (true: set, false: not yet set).
    case clientPin
    /// User presence; in a request, whether to test for it.
    case up
    /// Built-in user verification; in a request, whether to perform it.
    case uv
    /// getPinUvAuthTokenUsingPinWithPermissions / UsingUvWithPermissions.
    case pinUvAuthToken
    /// makeCredential and getAssertion permissions only with a UV token.
    case noMcGaPermissionsWithClientPin
    /// authenticatorLargeBlobs.
    case largeBlobs
    /// Enterprise attestation (true: enabled).
    case ep
    /// authenticatorBioEnrollment.
    case bioEnroll
    /// The prototype of authenticatorBioEnrollment (0x40).
    case userVerificationMgmtPreview
    /// The be permission with built-in user verification.
    case uvBioEnroll
    /// authenticatorConfig.
    case authnrCfg
    /// The acfg permission with built-in user verification.
    case uvAcfg
    /// authenticatorCredentialManagement.
    case credMgmt
    /// Read-only credential management with the persistent pinUvAuthToken (CTAP 2.2).
    case perCredMgmtRO
    /// The prototype of authenticatorCredentialManagement (0x41).
    case credentialMgmtPreview
    /// authenticatorConfig's setMinPINLength.
    case setMinPINLength
    /// Non-discoverable credentials without user verification even when it is configured.
    case makeCredUvNotRqd
    /// alwaysUv (true: on).
    case alwaysUv
}

extension Dictionary where Key == String, Value == Bool {
    /// The value of `option` in an options map (a request's or getInfo's), nil when absent.
    public subscript(option: AuthenticatorOption) -> Bool? {
        get { self[option.rawValue] }
        set { self[option.rawValue] = newValue }
    }
}
