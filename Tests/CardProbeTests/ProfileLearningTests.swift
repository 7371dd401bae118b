@testable import arculus_card
import ArculusCard
import CTAP2
import CardProbe
import FIDOWire
import Foundation
import JSONSupport
import Testing
import TestSupport

/// `probe profile` and `probe --emulate`: a card's profile learned from its fingerprint. Every
/// switch of the catalogue is learnable from the battery (a card with it alone set is probed and
/// learned back), hand-made cards that set many at once and the built-in profiles round-trip, and
/// the emulator with the learned profile answers the battery as the card did.
@Suite("Learning a profile from a fingerprint")
struct ProfileLearningTests {
    /// For each switch of the catalogue: a value away from its default, and the card it is set
    /// on (the default profile unless the switch needs another). A switch added to the
    /// catalogue without a row here fails ``eachSwitchIsLearnedAlone``.
    static let samples: [String: (value: SwitchValue, base: CardProfile)] = {
        var noU2F = CardProfile.default
        noU2F.versions.removeAll { $0 == "U2F_V2" }
        let plain: [String: SwitchValue] = [
            "behaviour.malformedAPDU": .text("6F00"), "behaviour.unknownClass": .text("6D00"), "behaviour.unknownInstructionClass00": .text("6E00"),
            "behaviour.unknownInstructionClass80": .text("6E00"), "behaviour.incorrectP1P2": .text("6B00"), "behaviour.emptyMessage": .text("6984"),
            "behaviour.getResponseIdle": .text("9000"), "behaviour.nfcctapGetResponseIdle": .text("6A80"), "behaviour.nfcctapGetResponse": .bool(false),
            "behaviour.responseChunk": .number(200), "behaviour.getResponseP1P2": .text("ignore"), "behaviour.getResponseInChain": .text("process"),
            "behaviour.selectInChain": .text("process"), "behaviour.chainOverflow": .text("6F00"), "behaviour.notSelected": .text("6986"),
            "behaviour.selectOtherP1P2": .text("6A81"), "behaviour.selectNoDataP2": .text("answer"), "behaviour.selectWithoutAID": .text("selects"),
            "behaviour.selectPartialAID": .text("select"), "behaviour.failedSelectDeselects": .bool(false), "behaviour.afterRefusedSelect": .text("6D00"),
            "behaviour.afterReset": .text("6D00"), "behaviour.pinRetriesWithoutPIN": .text("retries"), "behaviour.pinUvAuthParamWithoutPIN": .text("pinAuthInvalid"),
            "behaviour.u2fVersionData": .text("ignore"), "behaviour.getInfoAbsent": .list(["transports", "options.plat"]),
            "behaviour.unstoredNames": .list(["rp.name", "user.displayName"]), "behaviour.singleAccountUser": .text("details"),
            "behaviour.upOption": .bool(false), "behaviour.uvAcfgOption": .bool(true), "behaviour.uvModality": .number(2),
            "behaviour.remainingCredentials": .text("capacity"), "behaviour.signatureCounter": .text("zero"), "behaviour.signatureCounterStep": .number(3),
            "behaviour.credentialIdLength": .number(100), "behaviour.commandResponseChunk": .number(100),
            "behaviour.parametersToNone": .text("ignore"), "behaviour.uvTokenWithoutUV": .text("notAllowed"),
            "behaviour.judging": .text("positional"), "behaviour.parametersAbsent": .text("cborUnexpectedType"),
            "behaviour.longMemberKey": .text("cborUnexpectedType"), "behaviour.pinUvAuthProtocolCheck": .text("onSight"),
            "behaviour.credentialManagementWithoutPIN": .text("puatRequired"),
        ]
        var samples = plain.mapValues { ($0, CardProfile.default) }
        samples["behaviour.u2fUnlisted"] = (SwitchValue.text("versionOnly"), noU2F)
        samples["behaviour.uvmMethods"] = (SwitchValue.text("strongest"), CardProfile.reference)  // the default has no uvm
        samples["behaviour.configUnknownSubcommand"] = (SwitchValue.text("invalidParameter"), CardProfile.reference)  // the default has no config
        for entry in CardProfile.switches where entry.isDeparture { samples[entry.field] = (SwitchValue.bool(true), CardProfile.default) }
        samples["departures.uvmTrailingByte"] = (SwitchValue.bool(true), CardProfile.reference)
        return samples
    }()

    /// The card of `profile` probed in process with the writing part, learned back, and the
    /// battery run against the emulator with the learned profile.
    static func roundTrip(_ profile: CardProfile, specOnly: Bool = false) throws -> (ProfileLearning, FingerprintDiff) {
        let card = try Probing.fingerprint(profile)
        let learning = try ProfileLearning.learn(from: card, file: "\(profile.name).fingerprint.json", specOnly: specOnly)
        let (_, diff) = try ProbeCommand.compare(card, learning, path: "card", rules: DiffRules(), timing: false)
        return (learning, diff)
    }

    @Test("every switch of the catalogue has one learner, whose evidence entries the battery sends; no learner names another field")
    func everySwitchHasEvidence() {
        let battery = Set(CardProber(includeWrites: true).entryIDs)
        let learners = SwitchLearner.all.map(\.field)
        #expect(Set(learners).count == learners.count, "one learner per switch")
        #expect(Set(learners) == Set(CardProfile.switches.map(\.field)))
        for learner in SwitchLearner.all {
            #expect(!learner.evidence.isEmpty, "\(learner.field) has no evidence")
            #expect(Set(learner.evidence).isSubset(of: battery), "\(learner.field): \(Set(learner.evidence).subtracting(battery)) are not battery entries")
        }
    }

    @Test("each switch, set alone away from its default, is learned back from the card's fingerprint, and the emulator then answers as the card",
          arguments: CardProfile.switches.map(\.field))
    func eachSwitchIsLearnedAlone(field: String) throws {
        let entry = try #require(CardProfile.behaviourSwitch(field))
        let sample = try #require(Self.samples[field], "no sample value for \(field): add one to ProfileLearningTests.samples")
        var profile = sample.base
        #expect(entry.set(sample.value, in: &profile), "\(field) takes \(sample.value)")
        try profile.validate()
        let (learning, diff) = try Self.roundTrip(profile)
        #expect(entry.value(in: learning.profile) == sample.value, "\(field): learned \(entry.value(in: learning.profile))")
        #expect(learning.switches.map(\.field) == profile.setSwitches.map(\.field))
        #expect(learning.switches.allSatisfy { battery.contains($0.entry) })
        #expect(diff.differences.isEmpty, "\(diff.differences.map { $0.sentence(("card", "emulator")) })")
    }

    /// A switch value with a list's order left out (getInfoAbsent lists the same members in any order).
    static func normal(_ value: SwitchValue) -> SwitchValue {
        if case .list(let items) = value { return .list(items.sorted()) }
        return value
    }

    private var battery: Set<String> { Set(CardProber(includeWrites: true).entryIDs) }

    @Test("a card with many switches at once (Fixtures/behaviour/many-switches.json, other-switches.json): every switch learned back, nothing else; the emulator then answers as the card",
          arguments: ["many-switches", "other-switches"])
    func handMadeCards(name: String) throws {
        let profile = try CardProfile.load(path: Repository.fixtures.appendingPathComponent("behaviour/\(name).json").path)
        #expect(profile.setSwitches.count >= 20)
        let (learning, diff) = try Self.roundTrip(profile)
        for entry in CardProfile.switches {
            #expect(Self.normal(entry.value(in: learning.profile)) == Self.normal(entry.value(in: profile)), "\(entry.field)")
        }
        #expect(learning.switches.map(\.field) == profile.setSwitches.map(\.field))
        #expect(learning.profile.attestation == profile.attestation)
        #expect(diff.differences.isEmpty, "\(diff.differences.map { $0.sentence(("card", "emulator")) })")
        // --spec-only leaves out the departures and only them.
        let (specOnly, _) = try Self.roundTrip(profile, specOnly: true)
        #expect(specOnly.switches.map(\.field) == profile.setSwitches.filter { !$0.isDeparture }.map(\.field))
        #expect(specOnly.profile.departures == CardDepartures())
    }

    @Test("each built-in profile's fixture learns no switch and a profile the emulator answers the battery with as the fixture", arguments: CardProfile.builtIn)
    func builtInProfiles(profile: CardProfile) throws {
        let path = Repository.fixtures.appendingPathComponent("fingerprints/\(profile.name).fingerprint.json").path
        let card = try Fingerprint(path: path)
        let learning = try ProfileLearning.learn(from: card, file: path)
        #expect(learning.switches.isEmpty, "\(learning.switches.map(\.line))")
        #expect(learning.refused.isEmpty && learning.dropped.isEmpty)
        #expect(learning.profile.versions == profile.versions && learning.profile.aaguid == profile.aaguid)
        // The description is the attestation certificate's CN: the description cut at 64 characters.
        #expect(learning.profile.attestation == profile.attestation)
        #expect(learning.profile.description == AttestationIdentity.commonName(profile.description))
        let (_, diff) = try ProbeCommand.compare(card, learning, path: path, rules: DiffRules(), timing: false)
        #expect(diff.isEmpty, "\(diff.differences.map { $0.sentence(("card", "emulator")) })")
    }

    @Test("a fingerprint of another battery version is refused with one error naming both versions")
    func otherBattery() throws {
        var card = try Probing.fingerprint(.default, writes: false)
        card.battery.version = 1
        #expect(throws: BadProbeInput.self) { try ProfileLearning.learn(from: card, file: "old.json") }
        do {
            _ = try ProfileLearning.learn(from: card, file: "old.json")
        } catch {
            #expect("\(error)" == "old.json comes from battery version 1; this build runs battery version \(CardProber.batteryVersion): "
                    + "probe the card again with this build")
        }
    }

    @Test("the writing part starts each entry after the reset from a tap and a SELECT: a card that needs a SELECT after reset answers 6D00 only where the battery asks without one")
    func freshAfterReset() throws {
        var profile = CardProfile.default
        profile.behaviour.afterReset = .deselected(StatusWord(rawValue: 0x6D00))
        let card = try Probing.fingerprint(profile)
        let plain = try Probing.fingerprint(.default)
        let differing = card.probes.keys.filter { card.probes[$0] != plain.probes[$0] }
        #expect(differing == ["write.getInfo.after-reset-unselected"])
        #expect(card.probes["write.getInfo.after-reset-unselected"]?.answer == ["sw": "6D00"])
    }

    @Test("a description that goes on after '; ' (a captured profile's dropped list) is cut there for the certificate, and the learned profile takes the CN as its description")
    func descriptionIntoCertificate() throws {
        #expect(AttestationIdentity.commonName("Captured from Virtual PCD 00 01; dropped (the emulator cannot serve them): versions: FIDO_2_2")
                == "Captured from Virtual PCD 00 01")
        #expect(AttestationIdentity.commonName(String(repeating: "x", count: 70)).count == 64)
        var profile = CardProfile.default
        profile.aaguid = "00000000-0000-0000-0000-0000000000aa"
        profile.description = "Captured from Virtual PCD 00 01; dropped (the emulator cannot serve them): uvModality: 512"
        let (learning, diff) = try Self.roundTrip(profile)
        #expect(learning.profile.description == "Captured from Virtual PCD 00 01")
        #expect(diff.isEmpty, "\(diff.differences.map { $0.sentence(("card", "emulator")) })")
        #expect(ProfileLearning.commonName(#"C=US, O=Vendor\, Inc., CN=Key\, model 2"#) == "Key, model 2")
    }
}
