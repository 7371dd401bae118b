/// authenticatorClientPIN subcommands (CTAP 2.1 §6.5.5).
public enum ClientPINSubcommand: Int, Sendable, CaseIterable {
    case getPINRetries = 0x01, getKeyAgreement = 0x02, setPIN = 0x03, changePIN = 0x04
    case getPinToken = 0x05, getPinUvAuthTokenUsingUvWithPermissions = 0x06, getUVRetries = 0x07
    case getPinUvAuthTokenUsingPinWithPermissions = 0x09
}

/// authenticatorClientPIN request members (CTAP 2.1 §6.5.5).
public enum ClientPINKey: Int, Sendable, CaseIterable {
    case pinUvAuthProtocol = 0x01, subCommand = 0x02, keyAgreement = 0x03, pinUvAuthParam = 0x04
    case newPinEnc = 0x05, pinHashEnc = 0x06, permissions = 0x09, rpId = 0x0A
}

/// authenticatorClientPIN response members (CTAP 2.1 §6.5.5).
public enum ClientPINResponseKey: Int, Sendable, CaseIterable {
    case keyAgreement = 0x01, pinUvAuthToken = 0x02, pinRetries = 0x03, powerCycleState = 0x04
    case uvRetries = 0x05
}

/// pinUvAuthToken permissions (CTAP 2.1 §6.5.5.7, CTAP 2.2 adds `pcmr`).
public struct PINUVAuthPermissions: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `mc`: authenticatorMakeCredential.
    public static let makeCredential = PINUVAuthPermissions(rawValue: 0x01)
    /// `ga`: authenticatorGetAssertion.
    public static let getAssertion = PINUVAuthPermissions(rawValue: 0x02)
    /// `cm`: authenticatorCredentialManagement.
    public static let credentialManagement = PINUVAuthPermissions(rawValue: 0x04)
    /// `be`: authenticatorBioEnrollment.
    public static let bioEnrollment = PINUVAuthPermissions(rawValue: 0x08)
    /// `lbw`: authenticatorLargeBlobs writes.
    public static let largeBlobWrite = PINUVAuthPermissions(rawValue: 0x10)
    /// `acfg`: authenticatorConfig.
    public static let authenticatorConfig = PINUVAuthPermissions(rawValue: 0x20)
    /// `pcmr`: persistent credential management, read only (CTAP 2.2).
    public static let persistentCredentialManagementReadOnly = PINUVAuthPermissions(rawValue: 0x40)

    /// The specification's short names, in bit order.
    public static let names: [(PINUVAuthPermissions, String)] = [
        (.makeCredential, "mc"), (.getAssertion, "ga"), (.credentialManagement, "cm"), (.bioEnrollment, "be"),
        (.largeBlobWrite, "lbw"), (.authenticatorConfig, "acfg"), (.persistentCredentialManagementReadOnly, "pcmr"),
    ]

    /// Every permission a specification version defines (CTAP 2.1 §6.5.5.7, CTAP 2.2's pcmr); the
    /// other bits are undefined, and a card ignores them.
    public static let defined = PINUVAuthPermissions(rawValue: names.reduce(0) { $0 | $1.0.rawValue })

    /// `mc|ga`, or `0x80` bits without a name in hex.
    public var description: String {
        var parts = Self.names.filter { contains($0.0) }.map(\.1)
        let unnamed = rawValue & ~Self.names.reduce(0) { $0 | $1.0.rawValue }
        if unnamed != 0 { parts.append("0x" + Hex.byte(unnamed)) }
        return parts.isEmpty ? "none" : parts.joined(separator: "|")
    }
}
