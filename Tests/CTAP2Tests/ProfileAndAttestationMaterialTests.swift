import CTAP2
import CardCrypto
import Foundation
import Testing
import FIDOWire
import TestSupport

@Suite("Profile fixtures and compiled-in attestation material")
struct ProfileAndAttestationMaterialTests {
    static let profilesDirectory = Repository.fixtures.appendingPathComponent("profiles")

    @Test("every Fixtures/profiles/*.json decodes equal to the built-in profile of its name")
    func profileFixtures() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.profilesDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
        #expect(!files.isEmpty, "no profile files in \(Self.profilesDirectory.path)")
        var names: [String] = []
        for file in files {
            let profile = try CardProfile.load(path: file.path)
            let builtIn = try #require(CardProfile.builtIn.first { $0.name == profile.name },
                                       "\(file.lastPathComponent) names no built-in profile")
            #expect(profile == builtIn, "\(file.lastPathComponent)")
            names.append(profile.name)
        }
        #expect(Set(names) == Set(CardProfile.builtInNames), "one file per built-in profile")
        #expect(names.count == Set(names).count)
    }

    @Test("the compiled-in emulator identity meets the FIDO attestation certificate requirements",
          arguments: CardProfile.builtIn)
    func emulatorIdentity(profile: CardProfile) throws {
        let identity = try AttestationIdentity.emulator(for: profile)
        let root = identity.rootCertificate
        #expect(root.isCA)
        #expect(root.isSigned(by: try root.publicKey), "self-signed root")
        #expect(identity.certificate.isSigned(by: try root.publicKey))
        #expect(try identity.certificate.publicKey == identity.privateKey.publicKey)
        try checkFIDOAttestationCertificate(identity.certificate, aaguid: try aaguidBytes(profile.aaguid))
    }

    @Test("an issued batch or enterprise certificate reads no clock: dated from the root's start; seeded, the same bytes every time",
          arguments: [CardProfile.reference, .arculusFIDO21])
    func issuedCertificatesAreDeterministic(profile: CardProfile) throws {
        var profile = profile
        profile.aaguid = "00112233-4455-6677-8899-aabbccddeeff"
        let seed = CardEntropy.seeded(Array("issued certificates".utf8))
        let one = try AttestationIdentity.emulator(for: profile, entropy: seed)
        #expect(one.certificate == (try AttestationIdentity.emulator(for: profile, entropy: seed)).certificate)
        #expect(one.certificate.notBefore == one.rootCertificate.notBefore)
        #expect(one.certificate.notAfter == one.rootCertificate.notBefore.addingTimeInterval(20 * 365 * 86_400))
        #expect(one.certificate.isSigned(by: try one.rootCertificate.publicKey))
        let unseeded = try AttestationIdentity.emulator(for: profile)
        #expect(unseeded.certificate != (try AttestationIdentity.emulator(for: profile)).certificate, "a random signature")
        let enterprise = try AttestationIdentity.enterprise(for: profile, entropy: seed)
        #expect(enterprise.certificate == (try AttestationIdentity.enterprise(for: profile, entropy: seed)).certificate)
        #expect(enterprise.certificate.notBefore == enterprise.rootCertificate.notBefore)
    }

    @Test("a profile with another AAGUID gets a batch certificate for that AAGUID under the emulator root")
    func emulatorIdentityForOtherAAGUID() throws {
        var profile = CardProfile.arculusFIDO21
        profile.aaguid = "00112233-4455-6677-8899-aabbccddeeff"
        let identity = try AttestationIdentity.emulator(for: profile)
        #expect(identity.certificate.isSigned(by: try identity.rootCertificate.publicKey))
        try checkFIDOAttestationCertificate(identity.certificate, aaguid: try aaguidBytes(profile.aaguid))
    }
}
