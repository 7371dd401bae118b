/// Profile JSON: every field is written; the optional features may be left out when read, so a
/// profile file (or a card image) written before a feature existed still loads, with it off.
extension CardProfile {
    enum CodingKeys: String, CodingKey {
        case name, description, aaguid, versions, extensions, pinUvAuthProtocols, credentialManagement, pinUvAuthToken
        case makeCredUvNotRqd, maxMsgSize, maxCredentialCountInList, maxCredentialIdLength, transports, algorithms
        case firmwareVersion, minPINLength, residentKeyCapacity, resetWindowSeconds, selectResponse, atr, attestation
        case authenticatorConfig, alwaysUv, setMinPINLength, maxRPIDsForSetMinPINLength, minPinLengthRPIDs
        case maxPINLength, enterpriseAttestation, enterpriseAttestationRPIDs, largeBlobs, maxSerializedLargeBlobArray
        case maxCredBlobLength, credentialManagementPreview, persistentCredentialManagement, signatureCounterReservation
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try c.decode(String.self, forKey: .name), description: try c.decode(String.self, forKey: .description),
            aaguid: try c.decode(String.self, forKey: .aaguid), versions: try c.decode([String].self, forKey: .versions),
            extensions: try c.decode([String].self, forKey: .extensions),
            pinUvAuthProtocols: try c.decode([Int].self, forKey: .pinUvAuthProtocols),
            credentialManagement: try c.decode(Bool.self, forKey: .credentialManagement),
            pinUvAuthToken: try c.decode(Bool.self, forKey: .pinUvAuthToken),
            makeCredUvNotRqd: try c.decode(Bool.self, forKey: .makeCredUvNotRqd),
            maxMsgSize: try c.decode(Int.self, forKey: .maxMsgSize),
            maxCredentialCountInList: try c.decode(Int.self, forKey: .maxCredentialCountInList),
            maxCredentialIdLength: try c.decode(Int.self, forKey: .maxCredentialIdLength),
            transports: try c.decode([String].self, forKey: .transports), algorithms: try c.decode([Int].self, forKey: .algorithms),
            firmwareVersion: try c.decode(Int.self, forKey: .firmwareVersion),
            minPINLength: try c.decode(Int.self, forKey: .minPINLength),
            residentKeyCapacity: try c.decode(Int.self, forKey: .residentKeyCapacity),
            resetWindowSeconds: try c.decodeIfPresent(Double.self, forKey: .resetWindowSeconds),
            selectResponse: try c.decode(String.self, forKey: .selectResponse), atr: try c.decode(String.self, forKey: .atr),
            attestation: try c.decode(AttestationFormat.self, forKey: .attestation))
        authenticatorConfig = try c.decodeIfPresent(Bool.self, forKey: .authenticatorConfig) ?? false
        alwaysUv = try c.decodeIfPresent(Bool.self, forKey: .alwaysUv)
        setMinPINLength = try c.decodeIfPresent(Bool.self, forKey: .setMinPINLength) ?? false
        maxRPIDsForSetMinPINLength = try c.decodeIfPresent(Int.self, forKey: .maxRPIDsForSetMinPINLength) ?? 0
        minPinLengthRPIDs = try c.decodeIfPresent([String].self, forKey: .minPinLengthRPIDs) ?? []
        maxPINLength = try c.decodeIfPresent(Int.self, forKey: .maxPINLength) ?? 63
        enterpriseAttestation = try c.decodeIfPresent(Bool.self, forKey: .enterpriseAttestation) ?? false
        enterpriseAttestationRPIDs = try c.decodeIfPresent([String].self, forKey: .enterpriseAttestationRPIDs) ?? []
        largeBlobs = try c.decodeIfPresent(Bool.self, forKey: .largeBlobs) ?? false
        maxSerializedLargeBlobArray = try c.decodeIfPresent(Int.self, forKey: .maxSerializedLargeBlobArray) ?? 0
        maxCredBlobLength = try c.decodeIfPresent(Int.self, forKey: .maxCredBlobLength) ?? 0
        credentialManagementPreview = try c.decodeIfPresent(Bool.self, forKey: .credentialManagementPreview) ?? false
        persistentCredentialManagement = try c.decodeIfPresent(Bool.self, forKey: .persistentCredentialManagement) ?? false
        signatureCounterReservation = try c.decodeIfPresent(Int.self, forKey: .signatureCounterReservation) ?? 1
    }
}
