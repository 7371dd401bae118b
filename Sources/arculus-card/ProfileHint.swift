import CardProbe

/// `probe --emulate`: for each difference, whether a profile field can make the emulator match.
enum ProfileHint {
    /// getInfo members and options, and the card's identity, by the profile field that holds them.
    static let fields: [String: String] = [
        "versions": "versions", "extensions": "extensions", "aaguid": "aaguid", "maxMsgSize": "maxMsgSize",
        "pinUvAuthProtocols": "pinUvAuthProtocols", "maxCredentialCountInList": "maxCredentialCountInList",
        "maxCredentialIdLength": "maxCredentialIdLength", "transports": "transports", "algorithms": "algorithms",
        "maxSerializedLargeBlobArray": "maxSerializedLargeBlobArray", "minPINLength": "minPINLength",
        "firmwareVersion": "firmwareVersion", "maxCredBlobLength": "maxCredBlobLength",
        "maxRPIDsForSetMinPINLength": "maxRPIDsForSetMinPINLength", "remainingDiscoverableCredentials": "residentKeyCapacity",
        "maxPINLength": "maxPINLength", "options.credMgmt": "credentialManagement", "options.pinUvAuthToken": "pinUvAuthToken",
        "options.makeCredUvNotRqd": "makeCredUvNotRqd", "options.authnrCfg": "authenticatorConfig", "options.alwaysUv": "alwaysUv",
        "options.setMinPINLength": "setMinPINLength", "options.ep": "enterpriseAttestation", "options.largeBlobs": "largeBlobs",
        "options.credentialMgmtPreview": "credentialManagementPreview", "options.perCredMgmtRO": "persistentCredentialManagement",
    ]

    static func hint(for difference: Difference, dropped: [String]) -> String? {
        if difference.path == "card/atr" { return "→ the profile field `atr` holds this" }
        if difference.path.hasPrefix("probes/\(Fingerprint.selectEntry)/") { return "→ the profile field `selectResponse` holds this" }
        if difference.kind == .timing {
            return "→ no profile field holds timing; `serve --timing realistic`, or `ctl fault add --command … --delay S`, slows the emulator"
        }
        if difference.path.contains("/answer/body/attStmt") || difference.path.contains("/answer/certificate") {
            return "→ the profile field `attestation` chooses packed, self or none; the certificates are the emulator's own (accept them with an ignore rule)"
        }
        let getInfo = difference.path.hasPrefix("probes/\(Fingerprint.getInfoEntry)/answer/body/")
            || (difference.path.hasPrefix("probes/write.getInfo") && difference.path.contains("/answer/body/"))
        if getInfo, let member = fields.keys.sorted(by: { $0.count > $1.count }).first(where: { difference.field.hasPrefix($0) }),
           let field = fields[member] {
            let top = member.split(separator: ".").first.map(String.init) ?? member
            if let why = dropped.first(where: { $0.hasPrefix(member) || $0.hasPrefix(field) || $0.hasPrefix(top + ":") }) {
                let act = why.contains("(clamped to ") ? "clamp" : "drop"
                return "→ the profile field `\(field)` would hold this, but the profile had to \(act) it: \(why)"
            }
            return "→ the profile field `\(field)` holds this: set it in a copy of the profile"
        }
        if getInfo { return "→ no profile field holds this getInfo member" }
        return "→ no profile field expresses this: it is the emulator's own behaviour"
    }
}
