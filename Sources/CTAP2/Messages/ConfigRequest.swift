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

extension SetMinPINLengthParameters: CTAPMessage {
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var newMinPINLength = Member<UInt64>.absent
        var minPinLengthRPIDs = Member<[String]>.absent
        var forceChangePin = Member<Bool>.absent
        while let key: SetMinPINLengthKey = try members.next(&reader) {
            switch key {
            case .newMinPINLength: newMinPINLength = try reader.unsigned()
            case .minPinLengthRPIDs: minPinLengthRPIDs = try reader.array { reader throws(CBORError) in try reader.text() }
            case .forceChangePin: forceChangePin = try reader.bool()
            }
        }
        return Result { () throws(CTAPStatus) in
            let length = try newMinPINLength.optional().map { Int(clamping: $0) }
            return SetMinPINLengthParameters(newMinPINLength: length, minPinLengthRPIDs: try minPinLengthRPIDs.optional(),
                                             forceChangePin: try forceChangePin.optional())
        }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(SetMinPINLengthKey.newMinPINLength, int: newMinPINLength, of: &map)
        writer.member(SetMinPINLengthKey.minPinLengthRPIDs, array: minPinLengthRPIDs, of: &map) { $0.text($1) }
        writer.member(SetMinPINLengthKey.forceChangePin, bool: forceChangePin, of: &map)
        writer.close(map)
    }
}
