import CTAP2
import Foundation
import Testing
import FIDOWire
import TestSupport

/// Review defect 3: a profile may advertise only what this build implements — a client that reads
/// a feature in getInfo (CTAP 2.1 §6.4) must find it working. A profile that advertises more is
/// refused, with an error naming the field.
@Suite("Defect 3: profile validation names what is not implemented")
struct Defect03ProfileValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let edit: @Sendable (inout CardProfile) -> Void
        /// What ProfileError.invalid carries after the profile's name: "field: reason".
        let reason: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "version FIDO_2_2", edit: { $0.versions.append("FIDO_2_2") },
             reason: "versions: FIDO_2_2 is not implemented (this build speaks U2F_V2, FIDO_2_0, FIDO_2_1_PRE, FIDO_2_1)"),
        Case(name: "extension prf", edit: { $0.extensions.append("prf") },
             reason: "extensions: prf is not implemented (this build has credProtect, hmac-secret, hmac-secret-mc, credBlob, largeBlobKey, minPinLength, thirdPartyPayment, uvm)"),
        Case(name: "algorithm RS1 (-65535)", edit: { $0.algorithms.append(-65535) },
             reason: "algorithms: -65535 is not implemented (this build has -7, -8, -35, -36, -37, -47, -257)"),
        Case(name: "transport usb", edit: { $0.transports.append("usb") },
             reason: "transports: usb is not a transport this card has (nfc)"),
        Case(name: "PIN/UV auth protocol 3", edit: { $0.pinUvAuthProtocols = [2, 3] },
             reason: "pinUvAuthProtocols: must list 1 and/or 2, each once"),
        Case(name: "PIN/UV auth protocol 2 on a CTAP 2.0 card", edit: {
            $0.versions = ["U2F_V2", "FIDO_2_0"]
            $0.credentialManagement = false
            $0.pinUvAuthToken = false
        }, reason: "pinUvAuthProtocols: protocol 2 is CTAP 2.1; add FIDO_2_1 to versions or offer only protocol 1"),
        Case(name: "option credMgmt on a CTAP 2.0 card", edit: {
            $0.versions = ["U2F_V2", "FIDO_2_0"]
            $0.pinUvAuthProtocols = [1]
            $0.pinUvAuthToken = false
        }, reason: "credentialManagement: is a CTAP 2.1 feature; add FIDO_2_1 to versions"),
        Case(name: "option pinUvAuthToken on a CTAP 2.0 card", edit: {
            $0.versions = ["U2F_V2", "FIDO_2_0"]
            $0.pinUvAuthProtocols = [1]
            $0.credentialManagement = false
        }, reason: "pinUvAuthToken: is a CTAP 2.1 feature; add FIDO_2_1 to versions"),
    ]

    /// The arculus-fido21 card under another name, with only what every build of it had.
    static var base: CardProfile {
        var profile = CardProfile.arculusFIDO21
        profile.name = "edited"
        profile.extensions = ["credProtect", "hmac-secret"]
        return profile
    }

    @Test("CTAP 2.1 §6.4 (getInfo advertises what works): validate() refuses the profile with ProfileError.invalid naming the field",
          arguments: cases)
    func validate(testCase: Case) throws {
        var profile = Self.base
        #expect(throws: Never.self) { try profile.validate() }
        testCase.edit(&profile)
        #expect(throws: ProfileError.invalid("edited", testCase.reason)) { try profile.validate() }
        #expect(ProfileError.invalid("edited", testCase.reason).description == "profile edited is invalid: \(testCase.reason)")
    }

    @Test("CTAP 2.1 §6.4: no authenticator is made from such a profile (the same error)", arguments: cases)
    func authenticatorRefuses(testCase: Case) throws {
        var profile = Self.base
        testCase.edit(&profile)
        #expect(throws: ProfileError.invalid("edited", testCase.reason)) { _ = try TestClient(profile: profile) }
    }

    @Test("CTAP 2.1 §6.4: a profile file advertising an unimplemented version is refused on load, naming the field")
    func loadRefuses() throws {
        var profile = Self.base
        profile.versions.append("FIDO_2_2")
        let directory = try TemporaryDirectory("CTAP2Tests")
        let path = directory.file("edited.json")
        try profile.jsonData().write(to: URL(fileURLWithPath: path))
        #expect(throws: ProfileError.invalid("\(path) (named 'edited')", Self.cases[0].reason)) { _ = try CardProfile.load(path: path) }
        withExtendedLifetime(directory) {}
    }
}
