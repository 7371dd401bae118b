import CBOR
import FIDOWire

extension Authenticator {
    /// authenticatorConfig (CTAP 2.1 §6.11): enableEnterpriseAttestation, toggleAlwaysUv,
    /// setMinPINLength, each when the profile has the feature (else INVALID_SUBCOMMAND).
    mutating func authenticatorConfig(_ request: ConfigRequest, changes: inout [CardMutation]) throws(CTAPStatus) {
        guard let subcommand = request.subcommand, isOffered(subcommand) else { throw unofferedSubcommand }
        // A card protected by a PIN (or with alwaysUv on, for everything but turning it off)
        // takes configuration only with a token that has the acfg permission.
        let enforceAlwaysUv = alwaysUvEnabled && subcommand != .toggleAlwaysUv
        if isProtectedByUserVerification || enforceAlwaysUv {
            guard let pinUvAuthParam = request.pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            try verifyToken(pinUvAuthParam, message: request.authenticatedMessage, protocol: pinProtocol,
                            permission: .authenticatorConfig, rpId: nil)
        }
        switch subcommand {
        case .enableEnterpriseAttestation:
            if !state.enterpriseAttestationEnabled { changes.append(.enableEnterpriseAttestation) }
        case .toggleAlwaysUv:
            changes.append(.setAlwaysUv(!state.alwaysUv))
        case .setMinPINLength:
            try setMinPINLength(request.setMinPINLengthParameters(), changes: &changes)
        case .vendorPrototype:
            throw unofferedSubcommand
        }
    }

    /// The answer to a subCommand the card does not offer (behaviour.configUnknownSubcommand).
    private var unofferedSubcommand: CTAPStatus {
        profile.behaviour.configUnknownSubcommand == .invalidParameter ? .invalidParameter : .invalidSubcommand
    }

    private func isOffered(_ subcommand: ConfigSubcommand) -> Bool {
        switch subcommand {
        case .enableEnterpriseAttestation: profile.enterpriseAttestation
        case .toggleAlwaysUv: profile.alwaysUv != nil
        case .setMinPINLength: profile.setMinPINLength
        case .vendorPrototype: false
        }
    }

    /// setMinPINLength (CTAP 2.1 §6.11.4): the minimum only goes up, within maxPINLength; the RP
    /// list within maxRPIDsForSetMinPINLength; a PIN shorter than the new minimum, or
    /// forceChangePin, makes the PIN change before its next use.
    private func setMinPINLength(_ parameters: SetMinPINLengthParameters,
                                 changes: inout [CardMutation]) throws(CTAPStatus) {
        let current = state.effectiveMinPINLength
        let minimum = parameters.newMinPINLength ?? current
        guard minimum >= current, minimum <= profile.maxPINLength else { throw .pinPolicyViolation }
        let rpIDs = parameters.minPinLengthRPIDs ?? state.minPinLengthRPIDs
        guard rpIDs.count <= profile.maxRPIDsForSetMinPINLength else { throw .pinPolicyViolation }
        var force = parameters.forceChangePin ?? false
        if force && !state.isPINSet { throw .pinNotSet }
        if state.isPINSet && state.pinCodePoints < minimum { force = true }
        changes.append(.setPINPolicy(minimumLength: minimum, rpIDs: rpIDs, forcePINChange: force || state.forcePINChange))
    }
}
