import CBOR
import CTAP2
import Foundation
import Testing
import FIDOWire
import TestSupport

/// Every numeric profile field has a range the emulator serves (``CardProfile/numericLimits``): a
/// profile outside it is refused when it is loaded, naming the field, its value and the range, so
/// that no value can reach arithmetic that traps (a reset window of 1e10 s in nanoseconds, a
/// large-blob read near a maxMsgSize of 2^63 − 1) and take every card of the process down.
@Suite("Profile values: every number range-checked at load")
struct ProfileLimitsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// The field as the JSON file has it, replacing the arculus-fido21 value.
        let field: String
        let json: String
        let reason: String
        var base: CardProfile = .arculusFIDO21
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a reset window of 1e10 s (trapped converting to nanoseconds)", field: "resetWindowSeconds", json: "1e10",
             reason: "resetWindowSeconds is 10000000000.0, outside 0...86400 (seconds after power-up, at most a day; "
                 + "delete the field to allow a reset at any time)"),
        Case(name: "a negative reset window", field: "resetWindowSeconds", json: "-1",
             reason: "resetWindowSeconds is -1.0, outside 0...86400 (seconds after power-up, at most a day; "
                 + "delete the field to allow a reset at any time)"),
        Case(name: "maxMsgSize 2^63 − 1 (trapped in a large-blob read)", field: "maxMsgSize", json: "9223372036854775807",
             reason: "maxMsgSize is 9223372036854775807, outside 1024...65535 (CTAP 2.1 §6.4 asks at least 1024; "
                 + "an extended APDU carries at most 65535 bytes)"),
        Case(name: "a negative maxCredentialCountInList", field: "maxCredentialCountInList", json: "-5",
             reason: "maxCredentialCountInList is -5, outside 1...255 (at least one credential; at most 255)"),
        Case(name: "a negative residentKeyCapacity", field: "residentKeyCapacity", json: "-3",
             reason: "residentKeyCapacity is -3, outside 0...1000000 (the emulator keeps at most a million discoverable credentials)"),
        Case(name: "a maxCredentialIdLength beyond WebAuthn's 1023", field: "maxCredentialIdLength", json: "4096",
             reason: "maxCredentialIdLength is 4096, outside 81...1023 (the emulator's own credential IDs are 81 bytes or more; "
                 + "WebAuthn caps one at 1023)"),
        Case(name: "a negative firmwareVersion", field: "firmwareVersion", json: "-1",
             reason: "firmwareVersion is -1, outside 0...4294967295 (an unsigned integer of 32 bits)"),
        Case(name: "a maxSerializedLargeBlobArray of 2^40", field: "maxSerializedLargeBlobArray", json: "1099511627776",
             reason: "maxSerializedLargeBlobArray is 1099511627776, outside 1024...1048576 (CTAP 2.1 §6.10 asks at least 1024; "
                 + "the emulator keeps at most 1 MiB)"),
        Case(name: "a maxCredBlobLength no credential ID can carry (trapped wrapping a credBlob)", field: "maxCredBlobLength",
             json: "300", reason: "maxCredBlobLength is 300, outside 32...255 (CTAP 2.1 §12.2 asks at least 32; "
                 + "a credential ID carries at most 255)", base: .reference),
        Case(name: "a maxPINLength of 64", field: "maxPINLength", json: "64",
             reason: "maxPINLength is 64, outside 4...63 (CTAP 2.1's PIN is 4 to 63 code points)"),
        Case(name: "a signature counter reserved 2^62 ahead", field: "signatureCounterReservation", json: "4611686018427387904",
             reason: "signatureCounterReservation is 4611686018427387904, outside 1...1000000 (at least every assertion; "
                 + "at most a million ahead)"),
    ]

    /// `base` as a JSON file with `field` set to `json` (as written, e.g. `1e10`).
    static func file(_ testCase: Case, in directory: TemporaryDirectory) throws -> String {
        var profile = testCase.base
        profile.name = "hostile"
        var object = try #require(try JSONSerialization.jsonObject(with: profile.jsonData()) as? [String: Any])
        object[testCase.field] = "@VALUE@"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            .replacingOccurrences(of: "\"@VALUE@\"", with: testCase.json)
        let path = directory.file("hostile.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a profile file with the value is refused on load, naming the field, its value and the allowed range",
          arguments: cases)
    func loadRefuses(testCase: Case) throws {
        let directory = try TemporaryDirectory("ProfileLimits")
        let path = try Self.file(testCase, in: directory)
        #expect(throws: ProfileError.invalid("\(path) (named 'hostile')", testCase.reason)) { _ = try CardProfile.load(path: path) }
        #expect(ProfileError.invalid("hostile", testCase.reason).description == "profile hostile is invalid: \(testCase.reason)")
    }

    @Test("no authenticator is made from such a profile, however it was made (the same error)", arguments: cases)
    func authenticatorRefuses(testCase: Case) throws {
        let directory = try TemporaryDirectory("ProfileLimits")
        let decoded = try JSONDecoder().decode(CardProfile.self, from: Data(contentsOf: URL(fileURLWithPath: try Self.file(testCase, in: directory))))
        #expect(throws: ProfileError.invalid("hostile", testCase.reason)) { _ = try TestClient(profile: decoded) }
    }

    @Test("a profile file's strings are escaped in its errors: an extension named ESC [2J and a newline stays on one line")
    func forgedNamesEscaped() throws {
        var profile = CardProfile.arculusFIDO21
        profile.name = "hostile\u{9B}1m"
        profile.extensions.append("\u{1B}[2J\nprofile arculus-fido21 is valid")
        let error = try #require(throws: ProfileError.self) { try profile.validate() }
        #expect(error.description == #"profile hostile\u009b1m is invalid: extensions: \u001b[2J\nprofile arculus-fido21 is valid "#
                + "is not implemented (this build has credProtect, hmac-secret, hmac-secret-mc, credBlob, largeBlobKey, minPinLength, "
                + "thirdPartyPayment, uvm)")
    }

    @Test("the built-in profiles are within every range, and the bounds themselves are served")
    func boundsServed() throws {
        for profile in CardProfile.builtIn {
            #expect(throws: Never.self) { try profile.validate() }
            var copy = profile
            #expect(copy.clampToLimits().isEmpty, "\(profile.name) needs no clamping")
        }
        var longest = CardProfile.reference
        longest.maxMsgSize = 65535
        longest.resetWindowSeconds = 86_400
        longest.maxCredBlobLength = 255
        longest.maxCredentialIdLength = 1023
        longest.maxSerializedLargeBlobArray = 1_048_576
        let client = try TestClient(profile: longest)
        #expect(client.send(CTAPByte.reset).status == .ok, "a window of a day counts in nanoseconds")
    }

    @Test("clamping brings each field to its nearest bound and says so, one entry a field")
    func clamping() throws {
        var profile = CardProfile.reference
        profile.maxMsgSize = Int.max
        profile.maxCredentialCountInList = -5
        profile.residentKeyCapacity = -3
        profile.maxCredBlobLength = 300
        profile.resetWindowSeconds = 1e10
        let clamped = profile.clampToLimits()
        #expect(clamped == [
            "maxMsgSize: 9223372036854775807 (clamped to 65535: the emulator serves 1024...65535, CTAP 2.1 §6.4 asks at least 1024; an extended APDU carries at most 65535 bytes)",
            "maxCredentialCountInList: -5 (clamped to 1: the emulator serves 1...255, at least one credential; at most 255)",
            "residentKeyCapacity: -3 (clamped to 0: the emulator serves 0...1000000, the emulator keeps at most a million discoverable credentials)",
            "maxCredBlobLength: 300 (clamped to 255: the emulator serves 32...255, CTAP 2.1 §12.2 asks at least 32; a credential ID carries at most 255)",
            "resetWindowSeconds: 10000000000.0 (clamped to 86400.0: the emulator serves 0...86400)",
        ])
        #expect(throws: Never.self) { try profile.validate() }
        #expect(profile.maxMsgSize == 65535 && profile.maxCredentialCountInList == 1 && profile.residentKeyCapacity == 0)
        #expect(profile.maxCredBlobLength == 255 && profile.resetWindowSeconds == 86_400)
    }

    @Test("CTAP 2.1 §6.10.2: a large-blob read at offset 116 for 2^63 − 65 bytes (no PIN needed) is INVALID_LENGTH on the card a hostile capture makes, and nothing moves")
    func largeBlobReadOfACapturedProfile() throws {
        var profile = CardProfile.reference
        profile.maxMsgSize = Int.max
        _ = profile.clampToLimits()
        let client = try TestClient(profile: profile)
        let array = TestClient.serializedLargeBlobArray([.map([.int(1): .bytes([UInt8](repeating: 0xC3, count: 200)),
                                                               .int(2): .bytes([UInt8](repeating: 3, count: 12)), .int(3): 200])])
        #expect(array.count > 116)
        #expect(client.writeLargeBlobArray(array, fragmentSize: 1000, token: nil).status == .ok)
        let before = client.authenticator.state
        let read = client.send(CTAPByte.largeBlobs, [.int(1): .unsigned(UInt64(Int.max) - 64), .int(3): 116])
        #expect(read.status == .invalidLength)
        #expect(read.bytes.count == 1, "the status alone")
        #expect(client.authenticator.state == before)
        // The longest fragment from that offset is the rest of the array: the read stops at its end.
        let rest = try client.send(CTAPByte.largeBlobs, [.int(1): .int(65535 - 64), .int(3): 116]).body()[int: 1]
        #expect(rest == .bytes(Array(array[116...])))
    }
}
