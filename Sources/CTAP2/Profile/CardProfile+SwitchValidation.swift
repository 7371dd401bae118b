/// The switches' combinations: each value was checked when it was read (``BehaviourSwitch``);
/// here a switch that makes no sense beside another field is refused, naming both.
extension CardProfile {
    /// Checks that the switches fit together and with the rest of the profile.
    public func validateSwitches() throws(ProfileError) {
        func check(_ condition: Bool, _ fields: String, _ reason: @autoclosure () -> String) throws(ProfileError) {
            guard condition else { throw .invalid(name, "\(fields): \(reason())") }
        }
        try check(behaviour.u2fUnlisted == .absent || !supportsU2F, "behaviour.u2fUnlisted and versions",
                  "versionOnly describes a card whose versions lack U2F_V2; this one lists it")
        try check(behaviour.u2fVersionData == .wrongLength || supportsU2F || behaviour.u2fUnlisted == .versionOnly,
                  "behaviour.u2fVersionData and versions", "the card has no U2F_VERSION (no U2F_V2, and u2fUnlisted is absent)")
        try check(behaviour.nfcctapGetResponse || behaviour.nfcctapGetResponseIdle == .conditionsNotSatisfied,
                  "behaviour.nfcctapGetResponseIdle and behaviour.nfcctapGetResponse",
                  "a card without NFCCTAP_GETRESPONSE answers INS 11 as an unknown instruction (unknownInstructionClass80)")
        try check(behaviour.signatureCounter != .zero || behaviour.signatureCounterStep == 1,
                  "behaviour.signatureCounterStep and behaviour.signatureCounter", "a counter that is always 0 has no step")
        if let length = behaviour.credentialIdLength {
            try check(length <= maxCredentialIdLength, "behaviour.credentialIdLength and maxCredentialIdLength",
                      "\(length) is longer than the card says its IDs are (\(maxCredentialIdLength))")
        }
        try check(!departures.grantsUnsupportedPermissions || pinUvAuthToken,
                  "departures.grantsUnsupportedPermissions and pinUvAuthToken",
                  "permissions come only with getPinUvAuthTokenUsingPinWithPermissions (pinUvAuthToken)")
        var seen: Set<String> = []
        for member in behaviour.getInfoAbsent {
            try check(seen.insert(member).inserted, "behaviour.getInfoAbsent", "\(member) is listed twice")
        }
    }
}
