import FIDOWire

/// What this build implements, so a profile can advertise nothing else: a client that reads a
/// feature in getInfo must find it working.
extension CardProfile {
    /// getInfo versions this build speaks.
    public static let implementedVersions = ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"]
    /// Extensions this build implements, in the order its errors list them.
    public static let implementedExtensions: [ExtensionIdentifier] = [.credProtect, .hmacSecret, .hmacSecretMakeCredential, .credBlob,
                                                                      .largeBlobKey, .minPinLength, .thirdPartyPayment, .uvm]
    /// Whether this build implements the extension named `name`.
    public static func implementsExtension(_ name: String) -> Bool { implementedExtensions.contains { $0.rawValue == name } }
    /// COSE algorithms this build implements (ES256, EdDSA, ES384, ES512, PS256, ES256K, RS256).
    public static let implementedAlgorithms = [-7, -8, -35, -36, -37, -47, -257]
    /// Transports: the card is a contactless card.
    public static let implementedTransports = ["nfc"]

    /// Checks that everything the profile advertises is implemented and that every number is
    /// within the range the emulator serves (``numericLimits``), naming the first field that is
    /// wrong (and, for a number, its value and the range).
    public func validate() throws(ProfileError) {
        func check(_ condition: Bool, _ field: String, _ reason: @autoclosure () -> String) throws(ProfileError) {
            guard condition else { throw .invalid(name, "\(field): \(reason())") }
        }
        _ = try aaguidBytes
        _ = try atrBytes
        for version in versions {
            try check(Self.implementedVersions.contains(version), "versions",
                      "\(version) is not implemented (this build speaks \(Self.implementedVersions.joined(separator: ", ")))")
        }
        try check(supportsCTAP2 || supportsU2F, "versions", "lists no protocol (FIDO_2_0, FIDO_2_1 or U2F_V2)")
        try check(!versions.contains("FIDO_2_1") || versions.contains("FIDO_2_0"), "versions",
                  "FIDO_2_1 needs FIDO_2_0 too (a CTAP 2.1 card answers CTAP 2.0 platforms)")
        for name in extensions {
            try check(Self.implementsExtension(name), "extensions",
                      "\(name) is not implemented (this build has \(Self.implementedExtensions.map(\.rawValue).joined(separator: ", ")))")
        }
        try check(!pinUvAuthProtocols.isEmpty && pinUvAuthProtocols.allSatisfy { $0 == 1 || $0 == 2 }
                  && Set(pinUvAuthProtocols).count == pinUvAuthProtocols.count,
                  "pinUvAuthProtocols", "must list 1 and/or 2, each once")
        try check(!pinUvAuthProtocols.contains(2) || supportsCTAP21, "pinUvAuthProtocols",
                  "protocol 2 is CTAP 2.1; add FIDO_2_1 to versions or offer only protocol 1")
        try check(!algorithms.isEmpty, "algorithms", "must list at least one")
        for algorithm in algorithms {
            try check(Self.implementedAlgorithms.contains(algorithm), "algorithms",
                      "\(algorithm) is not implemented (this build has \(Self.implementedAlgorithms.map(String.init).joined(separator: ", ")))")
        }
        try check(!supportsU2F || algorithms.contains(-7), "algorithms", "U2F_V2 needs ES256 (-7)")
        for transport in transports {
            try check(Self.implementedTransports.contains(transport), "transports", "\(transport) is not a transport this card has (nfc)")
        }
        try check(selectResponse == "FIDO_2_0" || selectResponse == "U2F_V2", "selectResponse", "must be FIDO_2_0 or U2F_V2")
        try validateFeatures(check)
        try validateLimits()
        try validateSwitches()
    }

    private func validateFeatures(_ check: (Bool, String, @autoclosure () -> String) throws(ProfileError) -> Void) throws(ProfileError) {
        let needs21 = "is a CTAP 2.1 feature; add FIDO_2_1 to versions"
        try check(!credentialManagement || supportsCTAP21, "credentialManagement", needs21)
        try check(!pinUvAuthToken || supportsCTAP21, "pinUvAuthToken", needs21)
        try check(!authenticatorConfig || supportsCTAP21, "authenticatorConfig", needs21)
        try check(!largeBlobs || supportsCTAP21, "largeBlobs", needs21)
        try check(!credentialManagementPreview || versions.contains("FIDO_2_1_PRE"), "credentialManagementPreview",
                  "needs FIDO_2_1_PRE in versions")
        try check(!versions.contains("FIDO_2_1_PRE") || credentialManagementPreview, "versions",
                  "FIDO_2_1_PRE is offered only with credentialManagementPreview")
        try check(alwaysUv == nil || authenticatorConfig, "alwaysUv", "needs authenticatorConfig (toggleAlwaysUv)")
        try check(!setMinPINLength || authenticatorConfig, "setMinPINLength", "needs authenticatorConfig")
        try check(!enterpriseAttestation || authenticatorConfig, "enterpriseAttestation",
                  "needs authenticatorConfig (enableEnterpriseAttestation)")
        try check(!largeBlobs || pinUvAuthToken, "largeBlobs", "needs pinUvAuthToken (the lbw permission)")
        try check(!persistentCredentialManagement || (credentialManagement && pinUvAuthToken),
                  "persistentCredentialManagement", "needs credentialManagement and pinUvAuthToken")
        try check(!offers(.largeBlobKey) || largeBlobs, "extensions", "largeBlobKey needs largeBlobs")
        try check(!offers(.hmacSecretMakeCredential) || supportsHMACSecret, "extensions", "hmac-secret-mc needs hmac-secret")
        try check(!offers(.minPinLength) || setMinPINLength || !minPinLengthRPIDs.isEmpty, "extensions",
                  "minPinLength needs setMinPINLength or minPinLengthRPIDs")
        try check(!offers(.thirdPartyPayment) || supportsCTAP21, "extensions", "thirdPartyPayment \(needs21)")
        try check(enterpriseAttestationRPIDs.isEmpty || enterpriseAttestation, "enterpriseAttestationRPIDs",
                  "needs enterpriseAttestation")
    }
}
