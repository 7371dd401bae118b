/// authenticatorConfig subcommands (CTAP 2.1 §6.11).
public enum ConfigSubcommand: Int, Sendable, CaseIterable {
    case enableEnterpriseAttestation = 0x01, toggleAlwaysUv = 0x02, setMinPINLength = 0x03
    case vendorPrototype = 0xFF
}

/// authenticatorConfig request members (CTAP 2.1 §6.11).
public enum ConfigKey: Int, Sendable, CaseIterable {
    case subCommand = 0x01, subCommandParams = 0x02, pinUvAuthProtocol = 0x03, pinUvAuthParam = 0x04
}

/// Members of setMinPINLength's subCommandParams (CTAP 2.1 §6.11.4).
public enum SetMinPINLengthKey: Int, Sendable, CaseIterable {
    case newMinPINLength = 0x01, minPinLengthRPIDs = 0x02, forceChangePin = 0x03
}
