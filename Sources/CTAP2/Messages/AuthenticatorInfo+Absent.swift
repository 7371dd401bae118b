import FIDOWire

extension AuthenticatorInfo {
    /// Leaves out the members (by their CTAP names) and `options.NAME` options in `names`: a
    /// profile's behaviour.getInfoAbsent. `versions` and `aaguid` are required (validation keeps
    /// them out of the list).
    mutating func omit(_ names: [String]) {
        for name in names {
            if name.hasPrefix("options.") {
                let option = name.dropFirst("options.".count)
                options.removeAll { $0.name == option }
                continue
            }
            switch GetInfoKey.allCases.first(where: { String(describing: $0) == name }) {
            case .extensions: extensions = nil
            case .options: options = []
            case .maxMsgSize: maxMsgSize = nil
            case .pinUvAuthProtocols: pinUvAuthProtocols = nil
            case .maxCredentialCountInList: maxCredentialCountInList = nil
            case .maxCredentialIdLength: maxCredentialIdLength = nil
            case .transports: transports = nil
            case .algorithms: algorithms = nil
            case .maxSerializedLargeBlobArray: maxSerializedLargeBlobArray = nil
            case .forcePINChange: forcePINChange = nil
            case .minPINLength: minPINLength = nil
            case .firmwareVersion: firmwareVersion = nil
            case .maxCredBlobLength: maxCredBlobLength = nil
            case .maxRPIDsForSetMinPINLength: maxRPIDsForSetMinPINLength = nil
            case .uvModality: uvModality = nil
            case .remainingDiscoverableCredentials: remainingDiscoverableCredentials = nil
            case .encIdentifier: encIdentifier = nil
            case .maxPINLength: maxPINLength = nil
            case .encCredStoreState: encCredStoreState = nil
            // Members this card never reports, and the two required ones.
            case .versions, .aaguid, .preferredPlatformUvAttempts, .certifications,
                 .vendorPrototypeConfigCommands, .attestationFormats, .uvCountSinceLastPinEntry, .longTouchForReset,
                 .transportsForReset, .pinComplexityPolicy, .pinComplexityPolicyURL, .authenticatorConfigCommands, nil:
                break
            }
        }
    }
}
