import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire

/// Review defect 9: U2F check-only (P1 07) refuses a credProtect-3 key handle as enforce mode does:
/// such a credential needs user verification, which U2F cannot give, so it is not a key handle of
/// this card for U2F at all.
@Suite("Defect 9: U2F check-only with a credProtect-3 key handle")
struct Defect09U2FCheckOnlyTests {
    @Test("CTAP 2.1 §12.1 (credProtect userVerificationRequired) with FIDO U2F Raw Message Formats §5.1 (check-only): a credProtect-3 key handle → wrong data (6A80), as in enforce and don't-enforce modes",
          arguments: [0x07, 0x03, 0x08] as [UInt8])
    func credProtect3(control: UInt8) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["credProtect": 3])
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        #expect(client.authenticator.u2fAuthenticate(control: control, challenge: U2FTests.challenge, application: application,
                                                     keyHandle: made.id) == .wrongData)
    }

    @Test("FIDO U2F Raw Message Formats §5.1: check-only with a credProtect-2 or -1 key handle → conditions not satisfied (6985)",
          arguments: [1, 2])
    func lowerLevels(level: Int) throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["credProtect": .int(level)])
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        #expect(client.authenticator.u2fAuthenticate(control: 0x07, challenge: U2FTests.challenge, application: application,
                                                     keyHandle: made.id) == .conditionsNotSatisfied)
    }
}
