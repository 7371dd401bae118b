import FIDOWire
/// The pinUvAuthToken and its state (CTAP 2.1 §6.5.2.1): permissions and the RP it is bound to.
struct PINUVAuthToken {
    /// The token bytes (32, for both protocols).
    var value: [UInt8]
    /// Permission bits (`Permission`).
    var permissions: UInt8
    /// The permissions RP ID, bound on first use when the platform did not name one.
    var rpId: String?

    /// Permission bits (CTAP 2.1 §6.5.5.7).
    enum Permission: UInt8 {
        case makeCredential = 0x01
        case getAssertion = 0x02
        case credentialManagement = 0x04
        case bioEnrollment = 0x08
        case largeBlobWrite = 0x10
        case authenticatorConfig = 0x20
    }
}

extension Authenticator {
    /// Checks `pinUvAuthParam` over `message` against the current token, its permission and its
    /// RP binding; binds the token to `rpId` if it had none. Every failure is PIN_AUTH_INVALID.
    func verifyToken(_ param: [UInt8], message: [UInt8], protocol pinProtocol: PINUVAuthProtocol,
                     permission: PINUVAuthToken.Permission, rpId: String?) throws(CTAPStatus) {
        guard var token = volatile.token,
              pinProtocol.verify(key: token.value, message: message, signature: param) else {
            throw .pinAuthInvalid
        }
        guard token.permissions & permission.rawValue != 0 else { throw .pinAuthInvalid }
        if let rpId {
            if let bound = token.rpId {
                guard bound == rpId else { throw .pinAuthInvalid }
            } else {
                token.rpId = rpId
                volatile.token = token
            }
        }
    }

    /// After makeCredential/getAssertion used the token, a CTAP 2.1 card keeps only the lbw
    /// permission; a CTAP 2.0 card's pinToken stays valid until power-off.
    func consumeTokenPermissions() {
        guard profile.supportsCTAP21, var token = volatile.token else { return }
        token.permissions &= PINUVAuthToken.Permission.largeBlobWrite.rawValue
        volatile.token = token
    }

    /// Resolves `pinUvAuthProtocol` when a `pinUvAuthParam` is present: absent is
    /// MISSING_PARAMETER, unsupported is INVALID_PARAMETER.
    func pinProtocol(_ number: UInt64?) throws(CTAPStatus) -> PINUVAuthProtocol {
        guard let number else { throw .missingParameter }
        guard let pinProtocol = PINUVAuthProtocol(rawValue: Int(clamping: number)),
              profile.pinUvAuthProtocols.contains(pinProtocol.rawValue) else {
            throw .invalidParameter
        }
        return pinProtocol
    }

    /// The zero-length pinUvAuthParam probe platforms send to make the user pick a card
    /// (CTAP 2.1 §6.1.2 step 1, §6.2.2 step 1).
    func answerPINProbe() throws(CTAPStatus) -> Never {
        guard userPresence() else { throw .operationDenied }
        throw state.isPINSet ? .pinInvalid : .pinNotSet
    }
}
