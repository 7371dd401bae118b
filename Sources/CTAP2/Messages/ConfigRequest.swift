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
}

/// setMinPINLength's parameters (CTAP 2.1 §6.11.4), all optional.
struct SetMinPINLengthParameters: Equatable {
    var newMinPINLength: Int?
    var minPinLengthRPIDs: [String]?
    var forceChangePin: Bool?

    init(_ parameters: CBORMap?) throws(CTAPStatus) {
        guard let parameters else { return }
        let map = try RequestMap<SetMinPINLengthKey>(value: .map(parameters))
        newMinPINLength = try map.unsigned(.newMinPINLength).map { Int(clamping: $0) }
        if let list = try map.array(.minPinLengthRPIDs) {
            var rpIDs: [String] = []
            for item in list {
                guard case .text(let rpId) = item else { throw .cborUnexpectedType }
                rpIDs.append(rpId)
            }
            minPinLengthRPIDs = rpIDs
        }
        if let force = map[.forceChangePin] {
            guard case .bool(let flag) = force else { throw .cborUnexpectedType }
            forceChangePin = flag
        }
    }
}
