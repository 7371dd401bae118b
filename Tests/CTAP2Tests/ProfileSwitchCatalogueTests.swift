import CTAP2
import Foundation
import Testing
import FIDOWire
import TestSupport

/// The switch catalogue: names, defaults, JSON coding, and the errors a profile file gets for an
/// unknown switch, a value a switch does not take, and an impossible combination.
@Suite("Profile switches: the catalogue, its coding and validation")
struct ProfileSwitchCatalogueTests {
    /// A value other than the default that `entry` takes.
    static func otherValue(_ entry: BehaviourSwitch) -> SwitchValue {
        switch entry.field {
        case "behaviour.getResponseIdle": .text("9000")
        case "behaviour.selectWithoutAID": .text("selects")
        case "behaviour.afterReset": .text("6D00")
        case "behaviour.responseChunk": .number(247)
        case "behaviour.signatureCounterStep": .number(3)
        case "behaviour.credentialIdLength": .number(112)
        case "behaviour.getInfoAbsent": .list(["maxMsgSize", "options.plat"])
        case "behaviour.pinRetriesWithoutPIN": .text("retries")
        case "behaviour.pinUvAuthParamWithoutPIN": .text("pinAuthInvalid")
        case "behaviour.u2fVersionData": .text("ignore")
        case "behaviour.remainingCredentials": .text("capacity")
        case "behaviour.signatureCounter": .text("randomStep")
        case "behaviour.selectNoDataP2": .text("answer")
        case "behaviour.selectPartialAID": .text("select")
        case "behaviour.getResponseInChain", "behaviour.selectInChain": .text("process")
        case "behaviour.u2fUnlisted": .text("versionOnly")
        case "behaviour.getResponseP1P2": .text("ignore")
        case "behaviour.unstoredNames": .list(["rp.name"])
        case "behaviour.singleAccountUser": .text("details")
        case "behaviour.uvmMethods": .text("strongest")
        case "behaviour.uvAcfgOption": .bool(true)
        case "behaviour.uvModality": .number(512)
        case "behaviour.commandResponseChunk": .number(252)
        case "behaviour.parametersToNone": .text("ignore")
        case "behaviour.uvTokenWithoutUV": .text("notAllowed")
        case "behaviour.configUnknownSubcommand": .text("invalidParameter")
        case "behaviour.judging": .text("positional")
        case "behaviour.parametersAbsent", "behaviour.longMemberKey": .text("cborUnexpectedType")
        case "behaviour.pinUvAuthProtocolCheck": .text("onSight")
        case "behaviour.credentialManagementWithoutPIN": .text("puatRequired")
        default:
            if case .bool(let value) = entry.defaultValue { .bool(!value) } else { .text("6A88") }
        }
    }

    @Test("every switch has a unique field, a summary, values and the room; departures default off; the defaults are CardBehaviour()'s")
    func catalogue() {
        let fields = CardProfile.switches.map(\.field)
        #expect(Set(fields).count == fields.count)
        for entry in CardProfile.switches {
            #expect(!entry.summary.isEmpty && !entry.values.isEmpty && !entry.room.isEmpty, "\(entry.field)")
            #expect(entry.room.contains("§"), "\(entry.field) names the section that leaves the room or the rule broken")
            if entry.isDeparture { #expect(entry.defaultValue == .bool(false), "\(entry.field)") }
            for profile in CardProfile.builtIn { #expect(!entry.isSet(in: profile), "\(profile.name) \(entry.field)") }
        }
        #expect(CardProfile.builtIn.allSatisfy { $0.behaviour == CardBehaviour() && $0.departures == CardDepartures() })
    }

    @Test("each switch set through the catalogue changes its own field and no other; the JSON holds exactly the switches set, and reads back equal")
    func eachSwitchRoundTrips() throws {
        for entry in CardProfile.switches {
            var profile = CardProfile.reference
            let value = Self.otherValue(entry)
            #expect(entry.set(value, in: &profile), "\(entry.field) takes \(value)")
            #expect(entry.value(in: profile) == value)
            #expect(profile.setSwitches.map(\.field) == [entry.field])
            let json = try #require(try JSONSerialization.jsonObject(with: profile.jsonData()) as? [String: Any])
            let group = try #require(json[entry.group.rawValue] as? [String: Any])
            #expect(Array(group.keys) == [entry.name])
            #expect(try JSONDecoder().decode(CardProfile.self, from: profile.jsonData()) == profile)
        }
    }

    @Test("the built-in profiles write no behaviour or departures object: their JSON is as before the switches")
    func builtInJSONUnchanged() throws {
        for profile in CardProfile.builtIn {
            let json = try #require(try JSONSerialization.jsonObject(with: profile.jsonData()) as? [String: Any])
            #expect(json["behaviour"] == nil && json["departures"] == nil)
        }
    }

    /// Loads the default profile's JSON with `edit` applied to the object, from a file.
    func load(_ edit: (inout [String: Any]) -> Void) throws -> CardProfile {
        var json = try #require(try JSONSerialization.jsonObject(with: CardProfile.default.jsonData()) as? [String: Any])
        edit(&json)
        let directory = try TemporaryDirectory()
        let path = directory.file("profile.json")
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return try CardProfile.load(path: path)
    }

    func loadError(_ edit: (inout [String: Any]) -> Void) throws -> String {
        do {
            _ = try load(edit)
            return "(loaded)"
        } catch {
            return "\(error)".replacingOccurrences(of: #"cannot read profile \S+: "#, with: "", options: .regularExpression)
        }
    }

    @Test("an unknown switch, in either object, is one error naming the field and the switches there are")
    func unknownSwitch() throws {
        let behaviour = try loadError { $0["behaviour"] = ["selectAfterReset": "6D00"] }
        #expect(behaviour.hasPrefix("behaviour.selectAfterReset: no such switch (the behaviour switches are malformedAPDU, unknownClass,"))
        let departure = try loadError { $0["departures"] = ["acceptsAnyAID": true] }
        #expect(departure.hasPrefix("departures.acceptsAnyAID: no such switch (the departures switches are longerAIDSelects, exceedsLe,"))
    }

    /// `text` as a JSON value.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
    }

    @Test("a value a switch does not take is one error naming the field, the value and what it takes", arguments: [
        ("unknownClass", #""9000""#, "behaviour.unknownClass: 9000 is not a value it takes (it takes an error status word, 4 hex digits (SW1 64–6F but 6C))"),
        ("unknownClass", #""6C10""#, "behaviour.unknownClass: 6C10 is not a value it takes"),
        ("getResponseInChain", #""skip""#, "behaviour.getResponseInChain: skip is not a value it takes (it takes refuse or process)"),
        ("responseChunk", "257", "behaviour.responseChunk: 257 is not a value it takes (it takes 1…256)"),
        ("failedSelectDeselects", #""yes""#, "behaviour.failedSelectDeselects: yes is not a value it takes (it takes true or false)"),
        ("getInfoAbsent", #"["versions"]"#, "behaviour.getInfoAbsent: [versions] is not a value it takes"),
        ("afterReset", #""deselected""#, "behaviour.afterReset: deselected is not a value it takes"),
        ("credentialIdLength", "64", "behaviour.credentialIdLength: 64 is not a value it takes"),
        ("notSelected", #"{"sw": "6985"}"#, "behaviour.notSelected: (not a boolean, number, text or list of texts) is not a value it takes"),
    ])
    func unknownValue(name: String, value: String, message: String) throws {
        let parsed = try Self.json(value)
        let error = try loadError { $0["behaviour"] = [name: parsed] }
        #expect(error.hasPrefix(message), "\(error)")
    }

    @Test("an impossible combination is one error naming both fields", arguments: [
        (#"{"u2fUnlisted": "versionOnly"}"#, "behaviour.u2fUnlisted and versions"),
        (#"{"nfcctapGetResponse": false, "nfcctapGetResponseIdle": "6A88"}"#,
         "behaviour.nfcctapGetResponseIdle and behaviour.nfcctapGetResponse"),
        (#"{"signatureCounter": "zero", "signatureCounterStep": 2}"#,
         "behaviour.signatureCounterStep and behaviour.signatureCounter"),
        (#"{"credentialIdLength": 200}"#, "behaviour.credentialIdLength and maxCredentialIdLength"),
        (#"{"getInfoAbsent": ["transports", "transports"]}"#, "behaviour.getInfoAbsent: transports is listed twice"),
    ])
    func impossibleCombination(behaviour: String, fields: String) throws {
        let parsed = try Self.json(behaviour)
        let message = try loadError { $0["behaviour"] = parsed }
        // Named by its file (an edited copy keeps the built-in's name), with the name it gives itself.
        let named = message.replacingOccurrences(of: #"^profile \S+/profile\.json "#, with: "profile FILE ", options: .regularExpression)
        #expect(named.hasPrefix("profile FILE (named 'arculus-fido21') is invalid: \(fields)"), "\(message)")
    }

    @Test("a U2F switch without U2F, permissions granted without permission tokens: each names both fields; an ID shorter than a credBlob needs is taken")
    func impossibleAgainstTheProfile() throws {
        var noU2F = CardProfile.default
        noU2F.versions.removeAll { $0 == "U2F_V2" }
        noU2F.behaviour.u2fVersionData = .ignore
        #expect(throws: ProfileError.invalid("arculus-fido21", "behaviour.u2fVersionData and versions: the card has no U2F_VERSION (no U2F_V2, and u2fUnlisted is absent)")) {
            try noU2F.validate()
        }
        var fido2 = CardProfile.arculusFIDO2
        fido2.departures.grantsUnsupportedPermissions = true
        #expect(throws: ProfileError.invalid("arculus-fido2", "departures.grantsUnsupportedPermissions and pinUvAuthToken: permissions come only with getPinUvAuthTokenUsingPinWithPermissions (pinUvAuthToken)")) {
            try fido2.validate()
        }
        // An ID length below what a credBlob ID needs is no contradiction: only the shorter IDs are
        // padded (ProfileSwitchCTAPTests shows both lengths).
        var reference = CardProfile.reference
        reference.behaviour.credentialIdLength = 97
        #expect(throws: Never.self) { try reference.validate() }
    }

    @Test("a null or missing getInfo member is absent; a null maxPINLength is absent, a missing one stays 63 as before")
    func absentMembers() throws {
        let profile = try load { json in
            json["maxMsgSize"] = NSNull()
            json.removeValue(forKey: "maxCredentialIdLength")
            json["transports"] = NSNull()
            json.removeValue(forKey: "maxPINLength")
        }
        #expect(profile.behaviour.getInfoAbsent.sorted() == ["maxCredentialIdLength", "maxMsgSize", "transports"])
        #expect(profile.maxMsgSize == 1024)
        let again = try JSONDecoder().decode(CardProfile.self, from: profile.jsonData())
        #expect(again == profile)
        let nullPIN = try load { $0["maxPINLength"] = NSNull() }
        #expect(nullPIN.behaviour.getInfoAbsent == ["maxPINLength"] && nullPIN.maxPINLength == 63)
        let empty = try load { $0["transports"] = [String]() }
        #expect(empty.behaviour.getInfoAbsent.isEmpty && empty.transports.isEmpty, "an empty list is a value, not absent")
    }
}

@Suite("Profile switches: the profiles guide's table")
struct ProfileSwitchReadmeTests {
    /// The row of `entry`, as the profiles guide (Docs/Profiles.md) shows it.
    static func row(_ entry: BehaviourSwitch) -> String {
        let name = entry.isDeparture ? "`\(entry.field)` (**departure**)" : "`\(entry.field)`"
        return "| \(name) | \(entry.values) | `\(entry.defaultValue)` | \(entry.summary) | \(entry.room) |"
    }

    @Test("Docs/Profiles.md has every switch's row: name, values, default, what it changes, the room or the rule broken")
    func readmeTable() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("Docs/Profiles.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `behaviour.") || $0.hasPrefix("| `departures.") }
        #expect(rows.map(String.init) == CardProfile.switches.map(Self.row))
    }
}
