import ArculusCard
import CardProbe

/// `probe --emulate`, `probe profile`: for each difference left after learning, which profile
/// field or switch expresses it — and when the learning set it already, why it is still there —
/// or that none does.
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
        "options.up": "behaviour.upOption", "options.uvAcfg": "behaviour.uvAcfgOption", "uvModality": "behaviour.uvModality",
    ]

    static func hint(for difference: Difference, learning: ProfileLearning) -> String? {
        let path = difference.path
        if path == "card/atr" { return "→ the profile field `atr` holds this" }
        if path.hasPrefix("probes/\(Fingerprint.selectEntry)/") { return "→ the profile field `selectResponse` holds this" }
        if difference.kind == .timing {
            return "→ no profile field holds timing; `serve --timing realistic`, or `ctl fault add --command … --delay S`, slows the emulator"
        }
        if path.contains("/answer/body/attStmt/x5c") || path.contains("/answer/certificate") {
            return "→ the certificates are the card's own (its keys and its vendor's names): the emulator's are its own and can never be"
                + " the same (README); accept them with an ignore rule"
        }
        if path.contains("/answer/body/fmt") || path.contains("/answer/body/attStmt") {
            return "→ the profile field `attestation` chooses packed, self or none"
        }
        let entry = path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        if path.hasPrefix("probes/credentialManagement-preview.") {
            return learning.profile.credentialManagementPreview
                ? "→ `credentialManagementPreview` is on (with FIDO_2_1_PRE): the preview command answers as credentialManagement does; no switch expresses the rest"
                : "→ `credentialManagementPreview: true` with FIDO_2_1_PRE in versions gives the preview command (0x41)"
        }
        let getInfo = path.hasPrefix("probes/\(Fingerprint.getInfoEntry)/answer/body/")
            || (path.hasPrefix("probes/write.getInfo") && path.contains("/answer/body/"))
        if getInfo { return memberHint(difference, learning: learning) ?? "→ no profile field holds this getInfo member" }
        let concerned = SwitchLearner.all.filter { $0.evidence.contains(entry) }.compactMap { CardProfile.behaviourSwitch($0.field) }
        if !concerned.isEmpty {
            return "→ " + concerned.map { entry in
                if let learned = learning.switches.first(where: { $0.field == entry.field }) {
                    return "`\(entry.field)` concerns this entry; it is \(learned.value), as \(learned.entry) shows, and no value of it gives both answers"
                }
                if let read = learning.observed[entry.field] {
                    return "`\(entry.field)` concerns this entry; it stays \(entry.value(in: learning.profile)), as \(read) shows, "
                        + "and no value of it gives both answers"
                }
                return "`\(entry.field)` concerns this entry, but none of its values (\(entry.values)) gives your card's answer"
            }.joined(separator: "; ")
        }
        return "→ no profile field expresses this: it is the emulator's own behaviour"
    }

    /// A getInfo member's difference: the field that holds it, the absence switch, or what the
    /// profile had to drop.
    private static func memberHint(_ difference: Difference, learning: ProfileLearning) -> String? {
        guard let member = fields.keys.sorted(by: { $0.count > $1.count }).first(where: { difference.field.hasPrefix($0) }),
              let field = fields[member] else { return nil }
        if difference.left == "absent" {
            return "→ `behaviour.getInfoAbsent` lists what the card leaves out of getInfo: add \(member) to it in a copy of the profile"
        }
        let top = member.split(separator: ".").first.map(String.init) ?? member
        if let why = learning.dropped.first(where: { $0.hasPrefix(member) || $0.hasPrefix(field) || $0.hasPrefix(top + ":") }) {
            let act = why.contains("(clamped to ") ? "clamp" : "drop"
            return "→ the profile field `\(field)` would hold this, but the profile had to \(act) it: \(why)"
        }
        return "→ the profile field `\(field)` holds this: set it in a copy of the profile"
    }
}
