import CardProbe
import Foundation
import JSONSupport
import Testing

@Suite("Fingerprint diffs in the user's terms, and rules files")
struct FingerprintDiffTests {
    static let labels = ("your card", "the emulator")

    static func fingerprint(_ answers: [String: JSONValue], timing: [String: TimingSummary]? = nil, atr: String = "3B") -> Fingerprint {
        var probes: [String: ProbeResult] = [:]
        for (id, answer) in answers {
            let description = id == "getAssertion.no-clientDataHash" ? "getAssertion without clientDataHash" : id
            probes[id] = ProbeResult(description: description, request: "fixed", answer: answer)
        }
        return Fingerprint(battery: BatteryStamp(version: 1, entries: probes.count, writes: false), atr: atr, source: "",
                           probes: probes, timing: timing)
    }

    @Test("a different CTAP status is one difference: 'answers X, Y'; the body of an entry whose status differs is not compared")
    func status() throws {
        let card = Self.fingerprint(["getAssertion.no-clientDataHash": ["sw": "9000", "ctap": "CTAP2_ERR_MISSING_PARAMETER"]])
        let emulator = Self.fingerprint(["getAssertion.no-clientDataHash": ["sw": "9000", "ctap": "CTAP2_ERR_INVALID_CBOR", "body": [:]]])
        let diff = try FingerprintDiff(card, emulator)
        #expect(diff.differences.map { $0.sentence(Self.labels) } == [
            "getAssertion without clientDataHash: your card answers CTAP2_ERR_MISSING_PARAMETER, the emulator CTAP2_ERR_INVALID_CBOR",
        ])
        #expect(diff.differences.map(\.path) == ["probes/getAssertion.no-clientDataHash/answer"])
        #expect(try FingerprintDiff(card, card).isEmpty)
    }

    @Test("status words are named; a field difference names the field; an absent member is 'absent'")
    func fields() throws {
        let card = Self.fingerprint(["iso": ["sw": "6D00"], "getInfo": ["sw": "9000", "ctap": "CTAP2_OK", "body": ["versions": ["FIDO_2_0"], "options": ["rk": true]]]])
        let emulator = Self.fingerprint(["iso": ["sw": "6E00"], "getInfo": ["sw": "9000", "ctap": "CTAP2_OK", "body": ["versions": ["FIDO_2_0", "FIDO_2_1"], "options": [:]]]])
        #expect(try FingerprintDiff(card, emulator).differences.map { $0.sentence(Self.labels) } == [
            "getInfo, options.rk: your card true, the emulator absent",
            "getInfo, versions: your card [\"FIDO_2_0\"], the emulator [\"FIDO_2_0\",\"FIDO_2_1\"]",
            "iso: your card answers 6D00 (instruction not supported), the emulator 6E00 (class not supported)",
        ])
    }

    @Test("timing: within the default tolerance (2×, or 20 ms) the same; beyond, a difference; a rule widens or ignores it")
    func timing() throws {
        let fast = ["getAssertion.noCredential": TimingSummary(count: 6, p50: 1.5, p90: 2), "getInfo": TimingSummary(count: 6, p50: 0.4, p90: 0.5)]
        let slow = ["getAssertion.noCredential": TimingSummary(count: 6, p50: 301.5, p90: 302), "getInfo": TimingSummary(count: 6, p50: 1.9, p90: 2.5)]
        let diff = try FingerprintDiff(Self.fingerprint([:], timing: fast), Self.fingerprint([:], timing: slow))
        #expect(diff.differences.map { $0.sentence(Self.labels) } == [
            "getAssertion.noCredential round trip, median: your card 1.5 ms, the emulator 302 ms",
            "getAssertion.noCredential round trip, 90th percentile: your card 2.0 ms, the emulator 302 ms",
        ])
        let wide = try DiffRules(text: "timing getAssertion* ratio 160\n", name: "r")
        #expect(try FingerprintDiff(Self.fingerprint([:], timing: fast), Self.fingerprint([:], timing: slow), rules: wide).differences.map(\.path)
                == ["timing/getAssertion.noCredential/p50Ms"])
        let ignored = try FingerprintDiff(Self.fingerprint([:], timing: fast), Self.fingerprint([:], timing: slow),
                                          rules: try DiffRules(text: "ignore timing  # not compared\n", name: "r"))
        #expect(ignored.isEmpty)
        #expect(ignored.accepted.count == 2)
        #expect(try FingerprintDiff(Self.fingerprint([:], timing: fast), Self.fingerprint([:])).notCompared == ["timing: only the first was timed"])
    }

    @Test("a round trip below 1 ms is said in microseconds, never 0.0 ms")
    func timingBelowAMillisecond() throws {
        let fast = ["getInfo": TimingSummary(count: 6, p50: 0.004, p90: 0.0004)]
        let slow = ["getInfo": TimingSummary(count: 6, p50: 40, p90: 41)]
        let diff = try FingerprintDiff(Self.fingerprint([:], timing: fast), Self.fingerprint([:], timing: slow))
        #expect(diff.differences.map { $0.sentence(Self.labels) } == [
            "getInfo round trip, median: your card 4 µs, the emulator 40 ms",
            "getInfo round trip, 90th percentile: your card 1 µs, the emulator 41 ms",
        ])
    }

    @Test("ignore rules accept a path and everything below it, with * and ?")
    func ignore() throws {
        let rules = try DiffRules(text: "# known\nignore card/atr\nignore probes/write.*/answer/body/attStmt\n", name: "r")
        #expect(rules.ignores("card/atr"))
        #expect(rules.ignores("probes/write.makeCredential/answer/body/attStmt/x5c/0/subject"))
        #expect(!rules.ignores("probes/write.makeCredential/answer/body/authData"))
        #expect(!rules.ignores("card"))
        let diff = try FingerprintDiff(Self.fingerprint([:], atr: "3B01"), Self.fingerprint([:], atr: "3B02"), rules: rules)
        #expect(diff.isEmpty && diff.accepted.map(\.path) == ["card/atr"])
    }

    @Test("a bad rules line is refused with the file, the line and the form expected")
    func badRules() {
        #expect(throws: DiffRulesError.bad(file: "r", line: 2, "expected 'ignore PATH' or 'timing KIND ratio R [slack MS]', not 'ignroe card/atr'")) {
            try DiffRules(text: "ignore card/atr\nignroe card/atr\n", name: "r")
        }
        #expect(throws: DiffRulesError.bad(file: "r", line: 1, "the ratio is a number of at least 1, not 'half'")) {
            try DiffRules(text: "timing * ratio half", name: "r")
        }
        #expect(DiffRulesError.bad(file: "r", line: 1, "x").description == "r:1: x")
    }

    @Test("fingerprints of two batteries are not compared")
    func batteries() {
        var other = Self.fingerprint([:])
        other.battery.version = 99
        #expect(throws: FingerprintDiffError.differentBatteries(1, 99)) { try FingerprintDiff(Self.fingerprint([:]), other) }
    }
}

@Suite("Fingerprint diffs: lists of objects and long names")
struct FingerprintDiffListTests {
    static func makeCredential(_ subject: String, ca: Bool = false) -> JSONValue {
        let certificate: JSONValue = ["subject": .string(subject), "issuer": "C=US, O=Root Maker, CN=Root", "ca": .bool(ca), "version": 3,
                                      "aaguidExtension": true]
        return ["sw": "9000", "ctap": "CTAP2_OK", "body": ["fmt": "packed", "attStmt": ["alg": -7, "x5c": [certificate]]]]
    }

    @Test("a certificate difference names the member of the chain's item that differs, and a long name shows only the parts that differ")
    func certificateMember() throws {
        let shared = "C=US, O=Arculus Card Emulator (not a vendor CA), OU=Authenticator Attestation, CN="
        let card = FingerprintDiffTests.fingerprint(["write.makeCredential": Self.makeCredential(shared + "Captured from Virtual PCD 00 01")])
        let emulator = FingerprintDiffTests.fingerprint(["write.makeCredential": Self.makeCredential(shared + "Learned from card.json", ca: true)])
        let diff = try FingerprintDiff(card, emulator)
        #expect(diff.differences.map(\.path) == ["probes/write.makeCredential/answer/body/attStmt/x5c/0/ca",
                                                 "probes/write.makeCredential/answer/body/attStmt/x5c/0/subject"])
        #expect(diff.differences.map { $0.sentence(FingerprintDiffTests.labels) } == [
            "write.makeCredential, attStmt.x5c[0].ca: your card false, the emulator true",
            "write.makeCredential, attStmt.x5c[0].subject: your card …CN=Captured from Virtual PCD 00 01, the emulator …CN=Learned from card.json",
        ])
        // Lists of other values compare whole, as before.
        let versions = try FingerprintDiff(FingerprintDiffTests.fingerprint(["getInfo": ["sw": "9000", "body": ["versions": ["FIDO_2_0"]]]]),
                                           FingerprintDiffTests.fingerprint(["getInfo": ["sw": "9000", "body": ["versions": ["FIDO_2_1"]]]]))
        #expect(versions.differences.map(\.path) == ["probes/getInfo/answer/body/versions"])
    }
}
