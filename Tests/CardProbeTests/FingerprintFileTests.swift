import CardProbe
import Foundation
import JSONSupport
import Testing

@Suite("Fingerprint files: written, read back, refused with the reason")
struct FingerprintFileTests {
    static func sample() -> Fingerprint {
        Fingerprint(battery: BatteryStamp(version: CardProber.batteryVersion, entries: 2, writes: false), atr: "3B8A80",
                    source: "a test",
                    probes: ["getInfo": ProbeResult(description: "getInfo", request: ["apdu": "80108000010400"],
                                                    answer: ["sw": "9000", "ctap": "CTAP2_OK", "body": ["versions": ["FIDO_2_0"]]]),
                             "iso.unknown-instruction": ProbeResult(description: "an unknown instruction", request: ["apdu": "00990000"],
                                                                    answer: ["sw": "6D00"])],
                    timing: ["getInfo": TimingSummary(count: 6, p50: 0.42, p90: 0.6)],
                    profile: ProfileNote(name: "emulated-3f59672f", dropped: ["extensions: credBlobV2 (not implemented by this build)"]))
    }

    @Test("the text reads back as the same fingerprint; keys are sorted and each entry is a block of lines")
    func roundTrip() throws {
        let text = Self.sample().text
        #expect(try Fingerprint(data: Data(text.utf8), name: "sample.json") == Self.sample())
        let lines = text.split(separator: "\n")
        #expect(lines.contains("  \"probes\" : {"))
        #expect(lines.contains("    \"getInfo\" : {"))
        #expect(lines.contains("      \"answer\" : {\"body\":{\"versions\":[\"FIDO_2_0\"]},\"ctap\":\"CTAP2_OK\",\"sw\":\"9000\"},"))
        let keys = lines.filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(keys == ["battery", "card", "format", "formatVersion", "probes", "profile", "source", "timing"])
    }

    @Test("a file cut short at any line is refused, naming the file and what it is not")
    func truncated() throws {
        let text = Self.sample().text
        for cut in stride(from: 0, to: text.utf8.count - 2, by: 7) {
            let prefix = Data(text.utf8.prefix(cut))
            #expect(throws: FingerprintError.notJSON(file: "cut.json", excerpt: String(decoding: prefix.prefix(40), as: UTF8.self))) {
                try Fingerprint(data: prefix, name: "cut.json")
            }
        }
        let error = FingerprintError.notJSON(file: "cut.json", excerpt: "{\n  \"batt")
        #expect(error.description == "cut.json is not a fingerprint: it is not JSON (cut short?) — it starts \"{\\n  \\\"batt\"")
    }

    @Test("a foreign JSON file (a card profile), another format version, a missing member: each refused with the reason")
    func foreign() throws {
        let profile = Data(#"{"name": "arculus-fido21", "versions": ["FIDO_2_0"]}"#.utf8)
        #expect(throws: FingerprintError.notAFingerprint(file: "profile.json")) { try Fingerprint(data: profile, name: "profile.json") }
        #expect(FingerprintError.notAFingerprint(file: "profile.json").description
                == "profile.json is not a fingerprint: it has no \"format\": \"arculus-card fingerprint\" (make one with 'arculus-card pcsc probe')")
        guard case .object(var members) = Self.sample().json else { throw FingerprintError.notAFingerprint(file: "") }
        members["formatVersion"] = 2
        #expect(throws: FingerprintError.unsupportedFormat(file: "f.json", version: 2)) {
            try Fingerprint(json: .object(members), name: "f.json")
        }
        members["formatVersion"] = 1
        members["probes"] = ["getInfo": ["description": "getInfo", "request": "x"]]
        let missing = FingerprintError.malformed(file: "f.json", path: "probes.getInfo.answer", reason: "is missing or not a value")
        #expect(throws: missing) { try Fingerprint(json: .object(members), name: "f.json") }
        #expect(missing.description == "f.json is not a whole fingerprint: probes.getInfo.answer is missing or not a value")
    }

    @Test("timing percentiles are nearest-rank, in milliseconds rounded to 0.01")
    func percentiles() {
        let samples: [Duration] = [3, 1, 2, 10, 4, 5, 6, 7, 8, 9].map { .microseconds($0 * 1000 + 4) }
        #expect(TimingSummary(samples: samples) == TimingSummary(count: 10, p50: 5.0, p90: 9.0))
        #expect(TimingSummary(samples: [.microseconds(1234)]) == TimingSummary(count: 1, p50: 1.23, p90: 1.23))
    }
}
