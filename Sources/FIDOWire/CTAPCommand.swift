/// The authenticator API command bytes (CTAP 2.1 §6 "Authenticator API", CTAP 2.2 §6), the first
/// byte of every CTAP2 request.
public enum CTAPCommand: UInt8, Sendable, CaseIterable {
    case makeCredential = 0x01
    case getAssertion = 0x02
    case getInfo = 0x04
    case clientPIN = 0x06
    case reset = 0x07
    case getNextAssertion = 0x08
    case bioEnrollment = 0x09
    case credentialManagement = 0x0A
    case selection = 0x0B
    case largeBlobs = 0x0C
    case config = 0x0D
    /// authenticatorBioEnrollment as FIDO_2_1_PRE authenticators number it.
    case bioEnrollmentPreview = 0x40
    /// authenticatorCredentialManagement as FIDO_2_1_PRE authenticators number it (getInfo
    /// option `credentialMgmtPreview`).
    case credentialManagementPreview = 0x41

    /// The command's name as the specification writes it, e.g. `authenticatorMakeCredential`.
    public var name: String {
        switch self {
        case .makeCredential: "authenticatorMakeCredential"
        case .getAssertion: "authenticatorGetAssertion"
        case .getInfo: "authenticatorGetInfo"
        case .clientPIN: "authenticatorClientPIN"
        case .reset: "authenticatorReset"
        case .getNextAssertion: "authenticatorGetNextAssertion"
        case .bioEnrollment: "authenticatorBioEnrollment"
        case .credentialManagement: "authenticatorCredentialManagement"
        case .selection: "authenticatorSelection"
        case .largeBlobs: "authenticatorLargeBlobs"
        case .config: "authenticatorConfig"
        case .bioEnrollmentPreview: "authenticatorBioEnrollment (preview)"
        case .credentialManagementPreview: "authenticatorCredentialManagement (preview)"
        }
    }

    /// The command as Swift names it, without the `authenticator` prefix: `getAssertion`.
    public var identifier: String { String(describing: self) }

    /// The command a name stands for: the Swift case (`getAssertion`), the specification's name
    /// (`authenticatorGetAssertion`) or the byte (`0x02`, `2`). Case-insensitive.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let byte = Hex.number(lowered), let command = CTAPCommand(rawValue: byte) {
            self = command
            return
        }
        let bare = lowered.hasPrefix("authenticator") ? String(lowered.dropFirst("authenticator".count)) : lowered
        guard let command = Self.allCases.first(where: { $0.identifier.lowercased() == bare }) else { return nil }
        self = command
    }

    /// A command byte by name, or `CTAP command 0xNN` for a byte the specification does not define.
    public static func name(of byte: UInt8) -> String {
        CTAPCommand(rawValue: byte)?.name ?? "CTAP command 0x\(Hex.byte(byte))"
    }

    /// The key of the subcommand member in this command's request map, for commands that have
    /// subcommands (clientPIN 0x02; credentialManagement, bioEnrollment, config 0x01).
    public var subcommandKey: Int? {
        switch self {
        case .clientPIN: ClientPINKey.subCommand.rawValue
        case .credentialManagement, .credentialManagementPreview: CredentialManagementKey.subCommand.rawValue
        case .config: ConfigKey.subCommand.rawValue
        case .bioEnrollment, .bioEnrollmentPreview: 0x02
        default: nil
        }
    }

    /// The name of subcommand `number` of this command, if the specification names it.
    public func subcommandName(_ number: Int) -> String? {
        switch self {
        case .clientPIN: ClientPINSubcommand(rawValue: number).map { "\($0)" }
        case .credentialManagement, .credentialManagementPreview: CredentialManagementSubcommand(rawValue: number).map { "\($0)" }
        case .config: ConfigSubcommand(rawValue: number).map { "\($0)" }
        default: nil
        }
    }
}
