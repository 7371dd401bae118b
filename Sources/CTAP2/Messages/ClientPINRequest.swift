import CBOR
import FIDOWire

/// authenticatorClientPIN's parameters (CTAP 2.1 §6.5.5), read and type-checked. Which members a
/// subcommand needs is its own business: see the nested types, one per subcommand that takes any.
struct ClientPINRequest: Sendable, Equatable {
    /// The subCommand number as sent (a number this build does not know is INVALID_SUBCOMMAND).
    var subCommand: UInt64
    var pinUvAuthProtocol: UInt64?
    /// The platform's key-agreement key (a COSE_Key), as sent.
    var keyAgreement: CBORValue?
    var pinUvAuthParam: [UInt8]?
    var newPinEnc: [UInt8]?
    var pinHashEnc: [UInt8]?
    var permissions: UInt64?
    var rpId: String?
}

extension ClientPINRequest {
    /// The subcommand, or nil for a number the specification does not define.
    var subcommand: ClientPINSubcommand? { ClientPINSubcommand(rawValue: Int(clamping: subCommand)) }

    /// setPIN's members (CTAP 2.1 §6.5.5.5): all required.
    struct SetPIN {
        let keyAgreement: CBORValue
        let pinUvAuthParam: [UInt8]
        let newPinEnc: [UInt8]

        init(_ request: ClientPINRequest) throws(CTAPStatus) {
            guard let keyAgreement = request.keyAgreement, let pinUvAuthParam = request.pinUvAuthParam,
                  let newPinEnc = request.newPinEnc else { throw .missingParameter }
            self.keyAgreement = keyAgreement
            self.pinUvAuthParam = pinUvAuthParam
            self.newPinEnc = newPinEnc
        }
    }

    /// changePIN's members (CTAP 2.1 §6.5.5.6): all required.
    struct ChangePIN {
        let keyAgreement: CBORValue
        let pinUvAuthParam: [UInt8]
        let newPinEnc: [UInt8]
        let pinHashEnc: [UInt8]

        init(_ request: ClientPINRequest) throws(CTAPStatus) {
            guard let keyAgreement = request.keyAgreement, let pinUvAuthParam = request.pinUvAuthParam,
                  let newPinEnc = request.newPinEnc, let pinHashEnc = request.pinHashEnc else { throw .missingParameter }
            self.keyAgreement = keyAgreement
            self.pinUvAuthParam = pinUvAuthParam
            self.newPinEnc = newPinEnc
            self.pinHashEnc = pinHashEnc
        }
    }

    /// getPinToken's and getPinUvAuthTokenUsingPinWithPermissions' members (CTAP 2.1 §6.5.5.7).
    struct PINToken {
        let keyAgreement: CBORValue
        let pinHashEnc: [UInt8]

        init(_ request: ClientPINRequest) throws(CTAPStatus) {
            guard let keyAgreement = request.keyAgreement, let pinHashEnc = request.pinHashEnc else {
                throw .missingParameter
            }
            self.keyAgreement = keyAgreement
            self.pinHashEnc = pinHashEnc
        }
    }
}

extension ClientPINRequest: CTAPMessage {
    /// Reads the request body (the CBOR after the command byte), members in any order.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var subCommand = Member<UInt64>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        var keyAgreement = Member<CBORValue>.absent
        var pinUvAuthParam = Member<[UInt8]>.absent
        var newPinEnc = Member<[UInt8]>.absent
        var pinHashEnc = Member<[UInt8]>.absent
        var permissions = Member<UInt64>.absent
        var rpId = Member<String>.absent
        while let key: ClientPINKey = try members.next(&reader) {
            switch key {
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            case .subCommand: subCommand = try reader.unsigned()
            case .keyAgreement: keyAgreement = try reader.anyValue()
            case .pinUvAuthParam: pinUvAuthParam = try reader.byteString()
            case .newPinEnc: newPinEnc = try reader.byteString()
            case .pinHashEnc: pinHashEnc = try reader.byteString()
            case .permissions: permissions = try reader.unsigned()
            case .rpId: rpId = try reader.text()
            }
        }
        return Result { () throws(CTAPStatus) in
            let subCommand = try subCommand.required()
            return ClientPINRequest(
                subCommand: subCommand, pinUvAuthProtocol: try pinUvAuthProtocol.optional(), keyAgreement: try keyAgreement.optional(),
                pinUvAuthParam: try pinUvAuthParam.optional(), newPinEnc: try newPinEnc.optional(),
                pinHashEnc: try pinHashEnc.optional(), permissions: try permissions.optional(), rpId: try rpId.optional())
        }
    }

    /// The request body: the inverse of ``read(from:)``.
    func write(to writer: inout CBORWriter) {
        typealias Key = ClientPINKey
        var map = writer.openMap()
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.member(Key.subCommand, unsigned: subCommand, of: &map)
        writer.member(Key.keyAgreement, value: keyAgreement, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(Key.newPinEnc, bytes: newPinEnc, of: &map)
        writer.member(Key.pinHashEnc, bytes: pinHashEnc, of: &map)
        writer.member(Key.permissions, unsigned: permissions, of: &map)
        writer.member(Key.rpId, text: rpId, of: &map)
        writer.close(map)
    }
}
