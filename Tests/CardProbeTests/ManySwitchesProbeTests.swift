import ArculusCard
import CardProbe
import Foundation
import Testing
import TestSupport

/// A hand-made profile that sets many switches at once (`Fixtures/behaviour/many-switches.json`),
/// probed in process with the writing part: its fingerprint differs from arculus-fido21's exactly
/// in the entries its switches concern — each listed below with the switch that makes it.
@Suite("Profile switches: a card with many switches, probed")
struct ManySwitchesProbeTests {
    static let profilePath = Repository.fixtures.appendingPathComponent("behaviour/many-switches.json").path

    /// The entries that differ (the writing part's that show one switch too), each with the switch
    /// that makes it differ.
    static let expected: [String: String] = [
        "clientPIN.changePIN.no-pinHashEnc/answer": "departures.pinStateBeforeMembers",
        "clientPIN.getPinToken.no-pinHashEnc/answer": "departures.pinStateBeforeMembers",
        "clientPIN.getPinToken.no-keyAgreement/answer": "departures.pinStateBeforeMembers",
        "clientPIN.getPINRetries.no-protocol/answer": "departures.pinRetriesNeedProtocol",
        "clientPIN.getPINRetries.protocol-1/answer": "behaviour.pinRetriesWithoutPIN",
        "clientPIN.getPINRetries.protocol-2/answer": "behaviour.pinRetriesWithoutPIN",
        "write.getPINRetries.no-pin/answer": "behaviour.pinRetriesWithoutPIN",
        "write.getPINRetries.final/answer": "behaviour.pinRetriesWithoutPIN",
        "getAssertion.pinUvAuthParam-without-protocol/answer": "departures.pinUvAuthParamWithoutProtocolInvalid",
        "makeCredential.pinUvAuthParam-without-protocol/answer": "departures.pinUvAuthParamWithoutProtocolInvalid",
        "getAssertion.junk-pinUvAuthParam/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "makeCredential.junk-pinUvAuthParam/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "makeCredential.unknown-member/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "makeCredential.unknown-option/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "makeCredential.clientDataHash-16/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "getAssertion.uv-true/answer": "departures.getAssertionIgnoresUv",
        "getAssertion.rk-option/answer": "departures.rkOptionInvalid",
        "select.longer-aid/answer": "departures.longerAIDSelects",
        "select.ctap-before-select/answer": "behaviour.notSelected",
        "select.u2f-before-select/answer": "behaviour.notSelected",
        "select.next-occurrence/answer": "behaviour.selectOtherP1P2",
        "select.by-file-id/answer": "behaviour.selectOtherP1P2",
        "select.no-answer-data/answer/text": "behaviour.selectNoDataP2",
        "select.other-then-ctap/answer/1": "behaviour.failedSelectDeselects",
        "iso.unknown-instruction/answer": "behaviour.unknownInstructionClass00",
        "iso.message-class-00/answer": "behaviour.unknownInstructionClass00",
        "u2f.unknown-instruction/answer": "behaviour.unknownInstructionClass00",
        "iso.message-case-1/answer": "behaviour.emptyMessage",
        "iso.message-case-2/answer": "behaviour.emptyMessage",
        "iso.get-response-idle/answer": "behaviour.getResponseIdle",
        "iso.poll-idle/answer": "behaviour.nfcctapGetResponse",
        "iso.cancel-idle/answer": "behaviour.nfcctapGetResponse",
        "chain.broken-by-select/answer/1": "behaviour.selectInChain",
        "chain.broken-by-get-response/answer/1": "behaviour.getResponseInChain",
        "iso.getinfo-le-32/answer": "departures.exceedsLe",
        "iso.get-response-le-16/answer/0": "departures.exceedsLe",
        "iso.get-response-le-16/answer/1": "departures.exceedsLe",
        "iso.getinfo-case-3/answer/data": "behaviour.responseChunk",
        "iso.getinfo-extended/answer/data": "behaviour.getInfoAbsent",
        "getInfo/answer/body/maxMsgSize": "behaviour.getInfoAbsent",
        "getInfo/answer/body/transports": "behaviour.getInfoAbsent",
        "getInfo/answer/body/options/plat": "behaviour.getInfoAbsent",
        "iso.poll-p2-01/answer": "behaviour.nfcctapGetResponse",
        "select.without-aid/answer/1": "behaviour.notSelected",
        "write.getPinToken.without-pin/answer": "departures.pinStateBeforeMembers",
        "write.makeCredential.junk-without-pin/answer": "behaviour.pinUvAuthParamWithoutPIN",
        "write.largeBlobs.get-first-part/answer/data": "behaviour.responseChunk",
    ]
    /// The writing part's differences are in every credential ID (credentialIdLength 112) and
    /// every counter (signatureCounterStep 4), and nowhere else.
    static func explainsWrite(_ path: String) -> String? {
        if path.hasSuffix("/credential/id") || path.hasSuffix("/credentialId") || path.hasSuffix("/credentialID/id") {
            return "behaviour.credentialIdLength"
        }
        if path.hasSuffix("/signCount") || path == "write.u2f.authenticate/answer/counter" { return "behaviour.signatureCounterStep" }
        return nil
    }

    @Test("the battery's answers differ from arculus-fido21's exactly where the switches say")
    func differsWhereTheSwitchesSay() throws {
        let profile = try CardProfile.load(path: Self.profilePath)
        var base = profile
        base.behaviour = CardBehaviour()
        base.departures = CardDepartures()
        base.maxMsgSize = CardProfile.default.maxMsgSize
        #expect(base == { var p = CardProfile.default; p.name = profile.name; p.description = profile.description; return p }(),
                "the fixture is arculus-fido21 but for its switches")
        let diff = try FingerprintDiff(try Probing.fingerprint(.default), try Probing.fingerprint(profile),
                                       rules: try DiffRules(text: "ignore timing\nignore source\n", name: "rules"))
        let paths = diff.differences.map { String($0.path.dropFirst("probes/".count)) }
        let unexplained = paths.filter { Self.expected[$0] == nil && (!$0.hasPrefix("write.") || Self.explainsWrite($0) == nil) }
        #expect(unexplained.isEmpty, "\(unexplained.sorted().joined(separator: "\n"))")
        let missing = Set(Self.expected.keys).subtracting(paths)
        #expect(missing.isEmpty, "\(missing.sorted())")
        // Every switch the file sets shows in the battery.
        let shown = Set(Self.expected.values).union(paths.compactMap(Self.explainsWrite))
        #expect(Set(profile.setSwitches.map(\.field)).subtracting(shown) == [], "switches set that no entry shows")
    }
}
