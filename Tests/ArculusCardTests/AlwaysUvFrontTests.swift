import ArculusCard
import CBOR
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// alwaysUv and the card front: CTAP 2.1 §7.2.3 — with alwaysUv on the authenticator offers no
/// CTAP1/U2F, so the ISO 7816 front stops accepting the U2F instructions (CardModel keeps the
/// front's configuration in step with the authenticator).
@Suite("alwaysUv turns U2F off at the card front")
struct AlwaysUvFrontTests {
    static let application = SHA256.hash(Array("https://u2f.example".utf8))

    @Test("CTAP 2.1 §7.2.3, §6.11.2: U2F REGISTER through the front answers 9000, 6D00 (instruction not supported) once toggleAlwaysUv is on, 9000 again once off")
    func u2fFollowsAlwaysUv() throws {
        let card = try VirtualCard(profile: .reference)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(u2fRegisterAPDU(application: Self.application)).sw == 0x9000)
        #expect(try card.ctapThroughFront(.config, configParameters(0x02)).status == .ok)
        #expect(card.front.configuration.supportsU2F == false)
        #expect(card.exchangeWhole(u2fRegisterAPDU(application: Self.application)).sw == 0x6D00)
        #expect(card.exchangeWhole([0x00, 0x03, 0x00, 0x00, 0x00]).sw == 0x6D00, "U2F VERSION too")
        let versions = try card.send(.getInfo).okBody()[int: 1]
        #expect(versions == ["FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"])
        #expect(try card.ctapThroughFront(.config, configParameters(0x02)).status == .ok)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.exchangeWhole(u2fRegisterAPDU(application: Self.application)).sw == 0x9000)
    }

    @Test("CTAP 2.1 §7.2.3: a card image with alwaysUv on reopens with U2F off at the front (6D00)")
    func reopenedImage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        do {
            let card = try VirtualCard(imageAt: path, profile: .reference)
            #expect(card.send(.config, configParameters(0x02)).status == .ok)
        }
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.authenticator.state.alwaysUv)
        #expect(reopened.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(reopened.exchangeWhole(u2fRegisterAPDU(application: Self.application)).sw == 0x6D00)
    }
}
