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
            (keyAgreement, pinUvAuthParam, newPinEnc) =
                (try request.keyAgreement.needed(), try request.pinUvAuthParam.needed(), try request.newPinEnc.needed())
        }
    }

    /// changePIN's members (CTAP 2.1 §6.5.5.6): setPIN's and pinHashEnc, all required.
    struct ChangePIN {
        let keyAgreement: CBORValue
        let pinUvAuthParam: [UInt8]
        let newPinEnc: [UInt8]
        let pinHashEnc: [UInt8]

        init(_ request: ClientPINRequest) throws(CTAPStatus) {
            let setPIN = try SetPIN(request)
            (keyAgreement, pinUvAuthParam, newPinEnc, pinHashEnc) =
                (setPIN.keyAgreement, setPIN.pinUvAuthParam, setPIN.newPinEnc, try request.pinHashEnc.needed())
        }
    }

    /// getPinToken's and getPinUvAuthTokenUsingPinWithPermissions' members (CTAP 2.1 §6.5.5.7).
    struct PINToken {
        let keyAgreement: CBORValue
        let pinHashEnc: [UInt8]

        init(_ request: ClientPINRequest) throws(CTAPStatus) {
            (keyAgreement, pinHashEnc) = (try request.keyAgreement.needed(), try request.pinHashEnc.needed())
        }
    }
}

extension Optional {
    /// The value of a member a subcommand needs: absent is CTAP2_ERR_MISSING_PARAMETER.
    fileprivate func needed() throws(CTAPStatus) -> Wrapped {
        guard let self else { throw .missingParameter }
        return self
    }
}

extension ClientPINRequest: CTAPMessage, DeclaredMembers {
    /// subCommand first (the only member every subcommand needs), then the others in key order.
    static let members = MessageMembers<Self, ClientPINKey>([
        .required(.subCommand, \.subCommand, .unsigned),
        .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
        .optional(.keyAgreement, \.keyAgreement, .any),
        .optional(.pinUvAuthParam, \.pinUvAuthParam, .bytes),
        .optional(.newPinEnc, \.newPinEnc, .bytes),
        .optional(.pinHashEnc, \.pinHashEnc, .bytes),
        .optional(.permissions, \.permissions, .unsigned),
        .optional(.rpId, \.rpId, .text),
    ])
    static let initial = ClientPINRequest(subCommand: 0)
}
