/// The flags byte of authenticator data (WebAuthn §6.1): what the authenticator checked, and
/// which parts follow the signature counter.
public struct AuthenticatorDataFlags: OptionSet, Hashable, Sendable {
    /// The flags byte.
    public let rawValue: UInt8
    /// Wraps a flags byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP (bit 0): the user was present.
    public static let userPresent = AuthenticatorDataFlags(rawValue: 0x01)
    /// UV (bit 2): the user was verified.
    public static let userVerified = AuthenticatorDataFlags(rawValue: 0x04)
    /// AT (bit 6): attested credential data follows the counter.
    public static let attestedCredentialData = AuthenticatorDataFlags(rawValue: 0x40)
    /// ED (bit 7): extension outputs come last.
    public static let extensionData = AuthenticatorDataFlags(rawValue: 0x80)
}
