/// Profile JSON: every field is written; the optional features may be left out when read, so a
/// profile file (or a card image) written before a feature existed still loads, with it off.
/// The switches (``switches``) are written only when set away from their defaults, in the objects
/// `behaviour` and `departures`, so a profile that sets none reads and writes as before they existed.
/// A getInfo member that is `null` (or, for those a profile used to require, missing) is absent
/// from getInfo: it is listed in `behaviour.getInfoAbsent`, and the card works with the value
/// CTAP 2.1 §6.4 gives an absent member.
extension CardProfile {
    enum CodingKeys: String, CodingKey {
        case name, description, aaguid, versions, extensions, pinUvAuthProtocols, credentialManagement, pinUvAuthToken
        case makeCredUvNotRqd, maxMsgSize, maxCredentialCountInList, maxCredentialIdLength, transports, algorithms
        case firmwareVersion, minPINLength, residentKeyCapacity, resetWindowSeconds, selectResponse, atr, attestation
        case authenticatorConfig, alwaysUv, setMinPINLength, maxRPIDsForSetMinPINLength, minPinLengthRPIDs
        case maxPINLength, enterpriseAttestation, enterpriseAttestationRPIDs, largeBlobs, maxSerializedLargeBlobArray
        case maxCredBlobLength, credentialManagementPreview, persistentCredentialManagement, signatureCounterReservation
        case behaviour, departures
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // In the members' order, so that the first one missing or wrong is the one named. The
        // extensions are the file's text (which validation checks), not the built-ins' identifiers.
        let name = try c.decode(String.self, forKey: .name), description = try c.decode(String.self, forKey: .description)
        let aaguid = try c.decode(String.self, forKey: .aaguid), versions = try c.decode([String].self, forKey: .versions)
        let extensions = try c.decode([String].self, forKey: .extensions)
        self.init(
            name: name, description: description, aaguid: aaguid, versions: versions, extensions: [],
            pinUvAuthProtocols: try c.decode([Int].self, forKey: .pinUvAuthProtocols),
            credentialManagement: try c.decode(Bool.self, forKey: .credentialManagement),
            pinUvAuthToken: try c.decode(Bool.self, forKey: .pinUvAuthToken),
            makeCredUvNotRqd: try c.decode(Bool.self, forKey: .makeCredUvNotRqd),
            maxMsgSize: try c.decodeIfPresent(Int.self, forKey: .maxMsgSize) ?? 1024,
            maxCredentialCountInList: try c.decodeIfPresent(Int.self, forKey: .maxCredentialCountInList) ?? 1,
            maxCredentialIdLength: try c.decodeIfPresent(Int.self, forKey: .maxCredentialIdLength) ?? 128,
            transports: try c.decodeIfPresent([String].self, forKey: .transports) ?? [],
            algorithms: try c.decode([Int].self, forKey: .algorithms),
            firmwareVersion: try c.decodeIfPresent(Int.self, forKey: .firmwareVersion) ?? 0,
            minPINLength: try c.decode(Int.self, forKey: .minPINLength),
            residentKeyCapacity: try c.decode(Int.self, forKey: .residentKeyCapacity),
            resetWindowSeconds: try c.decodeIfPresent(Double.self, forKey: .resetWindowSeconds),
            selectResponse: try c.decode(String.self, forKey: .selectResponse), atr: try c.decode(String.self, forKey: .atr),
            attestation: try c.decode(AttestationFormat.self, forKey: .attestation))
        self.extensions = extensions
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
        try decodeSwitches(.behaviour, from: c, key: .behaviour)
        try decodeSwitches(.departures, from: c, key: .departures)
        // Members a profile could not leave out before: missing or null means absent from getInfo.
        var absent: [CodingKeys] = [.maxMsgSize, .maxCredentialCountInList, .maxCredentialIdLength, .transports, .firmwareVersion]
            .filter { !c.contains($0) || ((try? c.decodeNil(forKey: $0)) ?? false) }
        if c.contains(.maxPINLength), (try? c.decodeNil(forKey: .maxPINLength)) ?? false { absent.append(.maxPINLength) }
        for key in absent where !behaviour.getInfoAbsent.contains(key.stringValue) {
            behaviour.getInfoAbsent.append(key.stringValue)
        }
    }

    /// Reads the switches of `group` (an object of `NAME: value`), naming the field of an unknown
    /// switch or a value it does not take.
    private mutating func decodeSwitches(_ group: BehaviourSwitch.Group, from c: KeyedDecodingContainer<CodingKeys>,
                                         key: CodingKeys) throws {
        guard let values = try c.decodeIfPresent([String: SwitchValue].self, forKey: key) else { return }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            let field = "\(group.rawValue).\(name)"
            guard let entry = Self.behaviourSwitch(field) else {
                let known = Self.switches.filter { $0.group == group }.map(\.name).joined(separator: ", ")
                throw ProfileSwitchError(field: field, reason: "no such switch (the \(group.rawValue) switches are \(known))")
            }
            guard entry.set(value, in: &self) else {
                throw ProfileSwitchError(field: field, reason: "\(value) is not a value it takes (it takes \(entry.values))")
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        try c.encode(aaguid, forKey: .aaguid)
        try c.encode(versions, forKey: .versions)
        try c.encode(extensions, forKey: .extensions)
        try c.encode(pinUvAuthProtocols, forKey: .pinUvAuthProtocols)
        try c.encode(credentialManagement, forKey: .credentialManagement)
        try c.encode(pinUvAuthToken, forKey: .pinUvAuthToken)
        try c.encode(makeCredUvNotRqd, forKey: .makeCredUvNotRqd)
        try c.encode(maxMsgSize, forKey: .maxMsgSize)
        try c.encode(maxCredentialCountInList, forKey: .maxCredentialCountInList)
        try c.encode(maxCredentialIdLength, forKey: .maxCredentialIdLength)
        try c.encode(transports, forKey: .transports)
        try c.encode(algorithms, forKey: .algorithms)
        try c.encode(firmwareVersion, forKey: .firmwareVersion)
        try c.encode(minPINLength, forKey: .minPINLength)
        try c.encode(residentKeyCapacity, forKey: .residentKeyCapacity)
        try c.encodeIfPresent(resetWindowSeconds, forKey: .resetWindowSeconds)
        try c.encode(selectResponse, forKey: .selectResponse)
        try c.encode(atr, forKey: .atr)
        try c.encode(attestation, forKey: .attestation)
        try c.encode(authenticatorConfig, forKey: .authenticatorConfig)
        try c.encodeIfPresent(alwaysUv, forKey: .alwaysUv)
        try c.encode(setMinPINLength, forKey: .setMinPINLength)
        try c.encode(maxRPIDsForSetMinPINLength, forKey: .maxRPIDsForSetMinPINLength)
        try c.encode(minPinLengthRPIDs, forKey: .minPinLengthRPIDs)
        try c.encode(maxPINLength, forKey: .maxPINLength)
        try c.encode(enterpriseAttestation, forKey: .enterpriseAttestation)
        try c.encode(enterpriseAttestationRPIDs, forKey: .enterpriseAttestationRPIDs)
        try c.encode(largeBlobs, forKey: .largeBlobs)
        try c.encode(maxSerializedLargeBlobArray, forKey: .maxSerializedLargeBlobArray)
        try c.encode(maxCredBlobLength, forKey: .maxCredBlobLength)
        try c.encode(credentialManagementPreview, forKey: .credentialManagementPreview)
        try c.encode(persistentCredentialManagement, forKey: .persistentCredentialManagement)
        try c.encode(signatureCounterReservation, forKey: .signatureCounterReservation)
        for (group, key) in [(BehaviourSwitch.Group.behaviour, CodingKeys.behaviour), (.departures, .departures)] {
            let set = setSwitches.filter { $0.group == group }
            guard !set.isEmpty else { continue }
            try c.encode(Dictionary(uniqueKeysWithValues: set.map { ($0.name, $0.value(in: self)) }), forKey: key)
        }
    }
}
