import FIDOWire

/// The pinUvAuthToken and its state (CTAP 2.1 §6.5.2.1): permissions and the RP it is bound to.
struct PINUVAuthToken: Sendable {
    /// The token bytes (32, for both protocols).
    var value: [UInt8]
    var permissions: PINUVAuthPermissions
    /// The permissions RP ID, bound on first use when the platform did not name one.
    var rpId: String?
}

extension Authenticator {
    /// Checks `pinUvAuthParam` over `message` against the current token, its permission and its
    /// RP binding; binds the token to `rpId` if it had none. Every failure is PIN_AUTH_INVALID.
    mutating func verifyToken(_ param: [UInt8], message: [UInt8], protocol pinProtocol: PINUVAuthProtocol,
                              permission: PINUVAuthPermissions, rpId: String?) throws(CTAPStatus) {
        guard var token = session.token,
              pinProtocol.verify(key: token.value, message: message, signature: param) else {
            throw .pinAuthInvalid
        }
        guard token.permissions.contains(permission) else { throw .pinAuthInvalid }
        if let rpId {
            if let bound = token.rpId {
                guard bound == rpId else { throw .pinAuthInvalid }
            } else {
                token.rpId = rpId
                session.token = token
            }
        }
    }

    /// After makeCredential/getAssertion used the token, a CTAP 2.1 card keeps only the lbw
    /// permission; a CTAP 2.0 card's pinToken stays valid until power-off.
    mutating func consumeTokenPermissions() {
        guard profile.supportsCTAP21, var token = session.token else { return }
        token.permissions.formIntersection(.largeBlobWrite)
        session.token = token
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
    mutating func answerPINProbe() throws(CTAPStatus) -> Never {
        guard isUserPresent() else { throw .operationDenied }
        throw memory.state.isPINSet ? .pinInvalid : .pinNotSet
    }
}
