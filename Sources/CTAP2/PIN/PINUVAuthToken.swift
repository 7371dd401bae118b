import FIDOWire

extension Authenticator {
    /// Checks `pinUvAuthParam` over `message` with the token of `pinProtocol` (CTAP 2.1 §6.5.3
    /// verify), then the token's state: in use, `permission` granted, and — on a CTAP 2.1 card —
    /// the user-verified flag (when `requireUserVerified`) and the RP binding: a token bound to
    /// another RP ID fails, an unbound one is bound to `rpId`. Every failure is PIN_AUTH_INVALID.
    /// A CTAP 2.0 pinToken has no state beyond its value: it is valid until power-off.
    mutating func verifyToken(_ param: [UInt8], message: [UInt8], protocol pinProtocol: PINUVAuthProtocol,
                              permission: PINUVAuthPermissions, rpId: String?,
                              requireUserVerified: Bool = false) throws(CTAPStatus) {
        let ctap21 = profile.supportsCTAP21
        if ctap21 { session.token.observe(at: now) }
        guard session.token.inUse, let state = session.protocols[pinProtocol],
              pinProtocol.verify(key: state.token, message: message, signature: param) else {
            throw .pinAuthInvalid
        }
        guard session.token.permissions.contains(permission) else { throw .pinAuthInvalid }
        guard ctap21 else { return }
        if let rpId {
            let requested = Array(rpId.utf8)
            if let bound = session.token.rpId, bound != requested { throw .pinAuthInvalid }
        }
        if requireUserVerified && !session.token.userVerified { throw .pinAuthInvalid }
        if let rpId, session.token.rpId == nil { session.token.rpId = Array(rpId.utf8) }
        session.token.used = true
    }

    /// makeCredential's and getAssertion's token step (CTAP 2.1 §6.1.2 step 11, §6.2.2 step 6):
    /// whether a pinUvAuthParam verifies the user. Without one, no. With one on a card without a
    /// PIN, CTAP 2.1 says PIN_NOT_SET; CTAP 2.0 has no token to verify it with (PIN_AUTH_INVALID).
    mutating func userVerified(by pinUvAuthParam: [UInt8]?, _ pinProtocol: PINUVAuthProtocol?, over message: [UInt8],
                               permission: PINUVAuthPermissions, rpId: String) throws(CTAPStatus) -> Bool {
        guard let pinUvAuthParam else { return false }
        // CTAP 2.0 (§5.1 step 7, §5.2 step 3): "If pinAuth parameter is present and the pinProtocol
        // is not supported, return CTAP2_ERR_PIN_AUTH_INVALID" (see ``requestPINProtocol(_:)``).
        guard let pinProtocol else { throw .pinAuthInvalid }
        if profile.supportsCTAP21 && !state.isPINSet {
            // No PIN, so no token to verify against: PIN_NOT_SET, or as a card that verifies it
            // anyway, PIN_AUTH_INVALID (behaviour.pinUvAuthParamWithoutPIN).
            throw profile.behaviour.pinUvAuthParamWithoutPIN == .pinAuthInvalid ? .pinAuthInvalid : .pinNotSet
        }
        try verifyToken(pinUvAuthParam, message: message, protocol: pinProtocol, permission: permission,
                        rpId: rpId, requireUserVerified: true)
        return true
    }

    /// After makeCredential/getAssertion collected user presence — with the token or without it —
    /// a CTAP 2.1 card clears the token's flags and keeps only the lbw permission; a CTAP 2.0
    /// pinToken stays valid.
    mutating func consumeToken() {
        guard profile.supportsCTAP21 else { return }
        session.token.consumeAfterUserPresence()
    }

    /// makeCredential's and getAssertion's pinUvAuthProtocol, when a pinUvAuthParam is present.
    /// CTAP 2.1 (§6.1.2 step 2, §6.2.2 step 2): absent is MISSING_PARAMETER, unsupported
    /// INVALID_PARAMETER. CTAP 2.0 knows neither: a pinAuth under a protocol the card does not
    /// support (absent included) is PIN_AUTH_INVALID, when the pinAuth is verified — so nil here.
    /// A card with the departure pinUvAuthParamWithoutProtocolInvalid answers an absent one PIN_AUTH_INVALID.
    func requestPINProtocol(_ number: UInt64?) throws(CTAPStatus) -> PINUVAuthProtocol? {
        guard profile.supportsCTAP21 else { return try? pinProtocol(number) }
        if number == nil && profile.departures.pinUvAuthParamWithoutProtocolInvalid { throw .pinAuthInvalid }
        return try pinProtocol(number)
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

    /// The key-agreement key of a protocol the profile offers.
    func keyAgreementKey(_ pinProtocol: PINUVAuthProtocol) -> P256PrivateKey {
        guard let state = session.protocols[pinProtocol] else {
            preconditionFailure("protocol \(pinProtocol.rawValue) was resolved but has no state")
        }
        return state.keyAgreementKey
    }

    /// The zero-length pinUvAuthParam probe platforms send to make the user pick a card
    /// (CTAP 2.1 §6.1.2 step 1, §6.2.2 step 1).
    mutating func answerPINProbe() throws(CTAPStatus) -> Never {
        guard try personIsPresent() else { throw .operationDenied }
        throw memory.state.isPINSet ? .pinInvalid : .pinNotSet
    }

    /// Whether the card is protected by some form of user verification (a PIN; it has no
    /// built-in UV).
    var isProtectedByUserVerification: Bool { state.isPINSet }

    /// Whether alwaysUv is on (CTAP 2.1 §7.2.3): the profile has the feature and it is enabled.
    var alwaysUvEnabled: Bool { profile.alwaysUv != nil && state.alwaysUv }
}

import CardCrypto
