import CBOR
import FIDOWire

/// authenticatorConfig's parameters (CTAP 2.1 §6.11), read and type-checked.
struct ConfigRequest: Sendable, Equatable {
    /// The subCommand number as sent.
    var subCommand: UInt64
    var subCommandParams: CBORMap?
    /// subCommandParams as sent, for the pinUvAuthParam.
    var subCommandParamsBytes: [UInt8]? = nil
    var pinUvAuthProtocol: UInt64?
    var pinUvAuthParam: [UInt8]?
}

extension ConfigRequest {
    /// Reads the request body (the CBOR after the command byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let request = try RequestMap<ConfigKey>(decoding: body)
        subCommand = try request.requiredUnsigned(.subCommand)
        subCommandParams = try request.map(.subCommandParams)
        subCommandParamsBytes = request.encodedMember(.subCommandParams)
        pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
        pinUvAuthParam = try request.bytes(.pinUvAuthParam)
    }

    var subcommand: ConfigSubcommand? { ConfigSubcommand(rawValue: Int(clamping: subCommand)) }

    /// What pinUvAuthParam authenticates: 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams as sent
    /// (CTAP 2.1 §6.11, step "verify").
    var authenticatedMessage: [UInt8] {
        var message = [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue, UInt8(truncatingIfNeeded: subCommand)]
        if let bytes = subCommandParamsBytes ?? subCommandParams.map({ CBOREncoder.encode(.map($0)) }) { message += bytes }
        return message
    }

    /// setMinPINLength's parameters (CTAP 2.1 §6.11.4), all optional.
    struct SetMinPINLength: Equatable {
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
}
