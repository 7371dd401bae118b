import CBOR
import FIDOWire

/// authenticatorConfig's parameters (CTAP 2.1 §6.11), read and type-checked.
typealias ConfigRequest = SubcommandRequest<ConfigKey>

extension SubcommandRequest where Key == ConfigKey {
    var subcommand: ConfigSubcommand? { ConfigSubcommand(rawValue: Int(clamping: subCommand)) }

    /// What pinUvAuthParam authenticates: 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams as sent
    /// (CTAP 2.1 §6.11, step "verify").
    var authenticatedMessage: [UInt8] {
        authenticatedMessage(after: [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue])
    }

    /// setMinPINLength's subCommandParams (none: every member absent).
    func setMinPINLengthParameters() throws(CTAPStatus) -> SetMinPINLengthParameters {
        guard let parameters = subCommandParams else { return SetMinPINLengthParameters() }
        return try SetMinPINLengthParameters(decoding: parameters[...])
    }
}

/// setMinPINLength's parameters (CTAP 2.1 §6.11.4), all optional.
struct SetMinPINLengthParameters: Equatable {
    var newMinPINLength: Int?
    var minPinLengthRPIDs: [String]?
    var forceChangePin: Bool?
}

extension SetMinPINLengthParameters: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, SetMinPINLengthKey>([
        .optional(.newMinPINLength, \.newMinPINLength, .count),
        .optional(.minPinLengthRPIDs, \.minPinLengthRPIDs, .array(of: .text)),
        .optional(.forceChangePin, \.forceChangePin, .bool),
    ])
    static let initial = SetMinPINLengthParameters()
}
