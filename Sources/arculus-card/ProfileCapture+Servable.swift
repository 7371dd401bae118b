import ArculusCard
import CBOR
import FIDOWire

/// The nearest profile the emulator can serve: what a card reports that this build does not
/// implement, or that a profile cannot express, is dropped and named, so that a capture always
/// gives a profile (`pcsc capture-profile` without `--strict`, `probe --emulate`).
extension ProfileCapture {
    /// Drops from ``profile`` everything the emulator cannot serve and returns what it dropped, in
    /// words: the unimplemented versions, extensions, algorithms, transports and PIN protocols,
    /// features whose prerequisites the card lacks, and — comparing the emulator's getInfo with
    /// the card's `reported` one — every member and option no profile field holds; and what it
    /// clamped: each number outside the range the emulator serves (``CardProfile/numericLimits``),
    /// brought to the nearest bound.
    /// `checkingInfo` false leaves out the last comparison, for a caller that changes the profile
    /// further and compares at the end (``unexpressed(_:servedBy:known:)``).
    mutating func makeServable(reported: CBORMap, checkingInfo: Bool = true) throws -> (dropped: [String], clamped: [String]) {
        var dropped: [String] = []
        func drop<T: Equatable>(_ list: inout [T], _ field: String, keeping keep: (T) -> Bool, _ why: String) {
            for value in list where !keep(value) { dropped.append("\(field): \(value) (\(why))") }
            list.removeAll { !keep($0) }
        }
        let unimplemented = "not implemented by this build"
        drop(&profile.versions, "versions", keeping: CardProfile.implementedVersions.contains, unimplemented)
        drop(&profile.extensions, "extensions", keeping: CardProfile.implementsExtension, unimplemented)
        drop(&profile.algorithms, "algorithms", keeping: CardProfile.implementedAlgorithms.contains, unimplemented)
        drop(&profile.transports, "transports", keeping: CardProfile.implementedTransports.contains, "the emulator is an NFC card")
        drop(&profile.pinUvAuthProtocols, "pinUvAuthProtocols", keeping: { $0 == 1 || $0 == 2 }, unimplemented)
        if !profile.supportsCTAP21 {
            drop(&profile.pinUvAuthProtocols, "pinUvAuthProtocols", keeping: { $0 == 1 }, "protocol 2 needs FIDO_2_1")
        }
        if profile.pinUvAuthProtocols.isEmpty { profile.pinUvAuthProtocols = [1] }
        if profile.algorithms.isEmpty { profile.algorithms = [-7] }
        dropped += dropFeaturesWithoutPrerequisites()
        guard profile.supportsCTAP2 || profile.supportsU2F else {
            throw PCSCCommandError("the card reports no protocol the emulator speaks (versions \(DisplayText.escaped("\(profile.versions)")))")
        }
        let clamped = profile.clampToLimits()
        try profile.validate()
        if checkingInfo { dropped += try Self.unexpressed(reported, servedBy: profile, known: dropped + clamped) }
        return (dropped, clamped)
    }

    /// Features that need another one the card lacks (CTAP 2.1 for permissions, authenticatorConfig
    /// for its subcommands, large blobs for largeBlobKey, …), off.
    private mutating func dropFeaturesWithoutPrerequisites() -> [String] {
        var dropped: [String] = []
        func off(_ on: Bool, _ field: String, _ why: String, _ clear: (inout CardProfile) -> Void) {
            guard on else { return }
            dropped.append("\(field) (\(why))")
            clear(&profile)
        }
        let ctap21 = profile.supportsCTAP21
        if profile.versions.contains("FIDO_2_1") && !profile.versions.contains("FIDO_2_0") {
            profile.versions.insert("FIDO_2_0", at: profile.versions.firstIndex(of: "FIDO_2_1") ?? 0)
        }
        off(profile.versions.contains("FIDO_2_1_PRE") && !profile.credentialManagementPreview, "versions: FIDO_2_1_PRE",
            "offered only with credentialMgmtPreview") { $0.versions.removeAll { $0 == "FIDO_2_1_PRE" } }
        off(profile.credentialManagementPreview && !profile.versions.contains("FIDO_2_1_PRE"), "credentialManagementPreview",
            "needs FIDO_2_1_PRE") { $0.credentialManagementPreview = false }
        off(profile.credentialManagement && !ctap21, "credentialManagement", "needs FIDO_2_1") { $0.credentialManagement = false }
        off(profile.pinUvAuthToken && !ctap21, "pinUvAuthToken", "needs FIDO_2_1") { $0.pinUvAuthToken = false }
        off(profile.authenticatorConfig && !ctap21, "authenticatorConfig", "needs FIDO_2_1") { $0.authenticatorConfig = false }
        off(profile.largeBlobs && !(ctap21 && profile.pinUvAuthToken), "largeBlobs", "needs FIDO_2_1 and pinUvAuthToken") {
            $0.largeBlobs = false
            $0.maxSerializedLargeBlobArray = 0
        }
        off(profile.alwaysUv != nil && !profile.authenticatorConfig, "alwaysUv", "needs authenticatorConfig") { $0.alwaysUv = nil }
        off(profile.setMinPINLength && !profile.authenticatorConfig, "setMinPINLength", "needs authenticatorConfig") { $0.setMinPINLength = false }
        off(profile.enterpriseAttestation && !profile.authenticatorConfig, "enterpriseAttestation", "needs authenticatorConfig") {
            $0.enterpriseAttestation = false
            $0.enterpriseAttestationRPIDs = []
        }
        if !profile.setMinPINLength { profile.maxRPIDsForSetMinPINLength = 0 }
        off(profile.persistentCredentialManagement && !(profile.credentialManagement && profile.pinUvAuthToken),
            "persistentCredentialManagement", "needs credentialManagement and pinUvAuthToken") { $0.persistentCredentialManagement = false }
        let needs: [(ExtensionIdentifier, Bool, String)] = [
            (.largeBlobKey, profile.largeBlobs, "needs largeBlobs"),
            (.hmacSecretMakeCredential, profile.supportsHMACSecret, "needs hmac-secret"),
            (.minPinLength, profile.setMinPINLength || !profile.minPinLengthRPIDs.isEmpty, "needs setMinPINLength"),
            (.thirdPartyPayment, ctap21, "needs FIDO_2_1"),
            (.credBlob, profile.maxCredBlobLength >= 32, "needs a maxCredBlobLength of at least 32"),
        ]
        for (identifier, met, why) in needs where profile.offers(identifier) && !met {
            dropped.append("extensions: \(identifier.rawValue) (\(why))")
            profile.extensions.removeAll { $0 == identifier.rawValue }
        }
        if !profile.offers(.credBlob) { profile.maxCredBlobLength = 0 }
        if profile.selectResponse != "FIDO_2_0" && profile.selectResponse != "U2F_V2" { profile.selectResponse = "FIDO_2_0" }
        return dropped
    }

    /// The card's getInfo members and options that the emulator with `profile` answers otherwise,
    /// each in words, but for what the card's state decides (clientPin, the remaining capacity,
    /// encrypted identifiers) and what `known` already names.
    static func unexpressed(_ reported: CBORMap, servedBy profile: CardProfile, known: [String]) throws -> [String] {
        let served = try VirtualCard(profile: profile).send(.getInfo).map
        let stateful: Set<Int> = [GetInfoKey.remainingDiscoverableCredentials.rawValue, GetInfoKey.encIdentifier.rawValue,
                                  GetInfoKey.encCredStoreState.rawValue, GetInfoKey.forcePINChange.rawValue]
        let knownFields = Set(known.map { $0.prefix { $0 != ":" && $0 != " " } })
        var dropped: [String] = []
        for (key, value) in reported.entries {
            guard let number = key.intValue, !stateful.contains(number) else { continue }
            let name = GetInfoKey(rawValue: number).map { "\($0)" } ?? "0x" + String(number, radix: 16)
            guard !knownFields.contains(Substring(name)) else { continue }
            if number == GetInfoKey.options.rawValue, let options = value.mapValue, let ours = served[int: number]?.mapValue {
                for (option, flag) in options.entries {
                    guard let text = option.textValue, text != "clientPin", ours[text: text] != flag else { continue }
                    let theirs = ours[text: text].map { "\($0)" } ?? "absent"
                    dropped.append("options.\(text): \(flag) (the emulator answers \(theirs); no profile field holds it)")
                }
            } else if served[int: number] != value {
                dropped.append("\(name): \(value) (the emulator answers \(served[int: number].map { "\($0)" } ?? "nothing"); no profile field holds it)")
            }
        }
        return dropped
    }
}
