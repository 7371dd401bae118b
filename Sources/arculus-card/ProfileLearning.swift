import ArculusCard
import CBOR
import CTAPClient
import CardProbe
import FIDOWire
import Foundation
import JSONSupport

/// A card's profile learned from its fingerprint (`probe profile`, `probe --emulate`): its
/// identity as `pcsc capture-profile` takes it (getInfo, SELECT answer, ATR), what the writing
/// part shows of it (the attestation format, the blank card's capacity), the commands it answers
/// (the credential management preview), and every switch of the catalogue the battery shows
/// (``SwitchLearner``), each with the entry that showed it. What the profile cannot hold is
/// named, never silently left out.
struct ProfileLearning {
    /// One switch learned away from its default.
    struct LearnedSwitch: Equatable {
        let field: String
        let value: SwitchValue
        /// The entry whose answer showed it, and that answer in words.
        let entry: String
        let shown: String
        let isDeparture: Bool

        /// `behaviour.unknownClass = 6E00 (iso.unknown-class: the card answers 6E00)`.
        var line: String { "\(field) = \(value)  (\(entry): the card \(shown))" }
    }

    /// The profile: servable, validated.
    var profile: CardProfile
    /// The switches set away from their defaults, in the catalogue's order.
    var switches: [LearnedSwitch] = []
    /// Each switch a learner read a value for (at its default too), by field: the entry it read.
    var observed: [String: String] = [:]
    /// What else the card's answers set beside getInfo, in words (`attestation self (…)`).
    var features: [String] = []
    /// Switches whose learned value the profile could not take, with why.
    var refused: [String] = []
    /// What of the card the profile could not hold (``ProfileCapture/makeServable(reported:checkingInfo:)``).
    var dropped: [String] = []
    /// getInfo members the card did not report that the profile takes from elsewhere.
    var fromBase: [String] = []

    /// Learns the profile of the card `fingerprint` (read from `file`) shows; `specOnly` leaves
    /// the departures out (the card as the text allows it, whatever it breaks).
    ///
    /// - Throws: ``BadProbeInput`` when the fingerprint has no usable getInfo or comes from
    ///   another battery; ``PCSCCommandError`` when its getInfo makes no servable profile.
    static func learn(from fingerprint: Fingerprint, file: String, specOnly: Bool = false) throws -> ProfileLearning {
        try BadProbeInput.reading { () throws(FingerprintError) in try fingerprint.requireCurrentBattery(name: file) }
        guard let reported = fingerprint.getInfo else {
            throw BadProbeInput("\(file) has no getInfo answer (entry '\(Fingerprint.getInfoEntry)'): the card did not answer getInfo")
        }
        let info: AuthenticatorInfo
        do {
            info = try AuthenticatorInfo(reported)
        } catch {
            throw BadProbeInput("\(file): the card's getInfo cannot be read: \(error)")
        }
        var capture = ProfileCapture(base: .default)
        try capture.apply(info, reported: reported)
        var learning = ProfileLearning(profile: capture.profile)
        learning.fromBase = capture.fromBase
        learning.identity(fingerprint, file: file)
        capture.profile = learning.profile
        let (dropped, clamped) = try capture.makeServable(reported: reported, checkingInfo: false)
        learning.dropped = dropped + clamped
        learning.profile = capture.profile
        learning.learnSwitches(fingerprint, specOnly: specOnly)
        try learning.profile.validate()
        learning.dropped += try ProfileCapture.unexpressed(reported, servedBy: learning.profile, known: learning.dropped)
        return learning
    }

    /// What the fingerprint says beside getInfo's members.
    private mutating func identity(_ fingerprint: Fingerprint, file: String) {
        let name = URL(fileURLWithPath: file).lastPathComponent
        profile.selectResponse = fingerprint.selectAnswer ?? "FIDO_2_0"
        profile.atr = fingerprint.atr
        profile.name = "learned-" + profile.aaguid.prefix(8)
        profile.description = "Learned from \(name)"
        let body = fingerprint.probes[Fingerprint.getInfoEntry]?.answer["body"]
        // An absent member has the value CTAP 2.1 §6.4 gives it, not the base profile's.
        if body?["maxMsgSize"] == nil {
            profile.maxMsgSize = 1024
            fromBase.removeAll { $0 == "maxMsgSize" }
        }
        if body?["maxPINLength"] == nil { profile.maxPINLength = 63 }
        // The blank card's capacity: remainingDiscoverableCredentials after the reset.
        let evidence = LearningEvidence(fingerprint: fingerprint, profile: profile, emulatorInfo: { _ in nil })
        if let blank = evidence.infoMember("write.getInfo.after-reset", "remainingDiscoverableCredentials")?.intValue {
            profile.residentKeyCapacity = blank
            fromBase.removeAll { $0 == "residentKeyCapacity" }
        }
        // The credential management preview (0x41) answered as a command the card has.
        let preview = fingerprint.probes.filter { $0.key.hasPrefix("credentialManagement-preview.") }.sorted { $0.key < $1.key }
        if let (id, entry) = preview.first(where: { ($0.value.answer["ctap"]?.stringValue).map { $0 != "CTAP1_ERR_INVALID_COMMAND" } ?? false }) {
            profile.credentialManagementPreview = true
            if !profile.versions.contains("FIDO_2_1_PRE") {
                profile.versions.insert("FIDO_2_1_PRE", at: profile.versions.firstIndex(of: "FIDO_2_1") ?? profile.versions.endIndex)
            }
            features.append("credentialManagementPreview true (\(id): the card answers command 0x41 with \(entry.answer["ctap"]?.stringValue ?? "?"))")
        }
        // The attestation the writing part's makeCredential got.
        if let body = evidence.answer("write.makeCredential")?["body"], let format = body["fmt"]?.stringValue {
            let chain = body["attStmt"]?["x5c"]?.arrayValue
            let learned: CardProfile.AttestationFormat? = switch format {
            case "none": CardProfile.AttestationFormat.none
            case "packed": chain == nil ? .self : .packed
            default: nil
            }
            if let learned {
                profile.attestation = learned
                features.append("attestation \(learned.rawValue) (write.makeCredential: fmt \(format)\(format == "packed" ? chain == nil ? " without x5c" : " with x5c" : ""))")
            }
        }
        // The model's name, as its attestation certificate (or U2F's) gives it.
        for (id, certificate) in [("write.makeCredential", evidence.answer("write.makeCredential")?["body"]?["attStmt"]?["x5c"]?.arrayValue?.first),
                                  ("write.u2f.register", evidence.answer("write.u2f.register")?["certificate"])] {
            guard let subject = certificate?["subject"]?.stringValue, let commonName = Self.commonName(subject) else { continue }
            profile.description = commonName
            features.append("description \(commonName.debugDescription) (\(id): the attestation certificate's CN)")
            break
        }
    }

    /// Runs every learner (but the departures' with `specOnly`), each on the profile so far.
    private mutating func learnSwitches(_ fingerprint: Fingerprint, specOnly: Bool) {
        for learner in SwitchLearner.all {
            guard let entry = CardProfile.behaviourSwitch(learner.field), !(specOnly && entry.isDeparture) else { continue }
            let evidence = LearningEvidence(fingerprint: fingerprint, profile: profile, emulatorInfo: Self.emulatorInfo)
            guard let observed = learner.read(evidence) else { continue }
            self.observed[learner.field] = observed.entry
            var candidate = profile
            guard entry.set(observed.value, in: &candidate) else {
                refused.append("\(learner.field): \(observed.value) (\(observed.entry): the card \(observed.shown)) is not a value it takes (it takes \(entry.values))")
                continue
            }
            do {
                try candidate.validateSwitches()
            } catch {
                refused.append("\(learner.field): \(observed.value) (\(observed.entry): the card \(observed.shown)): \(error)")
                continue
            }
            profile = candidate
            if entry.isSet(in: profile) {
                switches.append(LearnedSwitch(field: entry.field, value: observed.value, entry: observed.entry,
                                              shown: observed.shown, isDeparture: entry.isDeparture))
            }
        }
    }

    /// getInfo as a fresh emulated card of `profile` answers it: member names, options by name.
    static func emulatorInfo(_ profile: CardProfile) -> JSONValue? {
        guard let card = try? VirtualCard(profile: profile) else { return nil }
        var members: [String: JSONValue] = [:]
        for (key, value) in card.send(.getInfo).map.entries {
            guard let number = key.intValue else { continue }
            let name = GetInfoKey(rawValue: number).map { "\($0)" } ?? "\(number)"
            if number == GetInfoKey.options.rawValue, let options = value.mapValue {
                var flags: [String: JSONValue] = [:]
                for (option, flag) in options.entries { if let text = option.textValue { flags[text] = .bool(flag.boolValue ?? false) } }
                members[name] = .object(flags)
            } else {
                members[name] = .bool(true)
            }
        }
        return .object(members)
    }

    /// The CN of a certificate name as the fingerprint writes it (`C=US, O=…, CN=…`, RFC 2253
    /// escapes), unescaped.
    static func commonName(_ name: String) -> String? {
        guard let start = name.range(of: "CN=", options: .backwards) else { return nil }
        var value = ""
        var escaped = false
        for character in name[start.upperBound...] {
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                break
            } else {
                value.append(character)
            }
        }
        return value.isEmpty ? nil : value
    }
}
