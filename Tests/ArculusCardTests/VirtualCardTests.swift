import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

@Suite("VirtualCard")
struct VirtualCardTests {
    static let select: [UInt8] = NFCBinding.selectFIDOApplet

    /// Sends `apdu` and collects the whole response through GET RESPONSE; returns data and SW.
    static func exchange(_ card: VirtualCard, _ apdu: [UInt8]) -> (data: [UInt8], sw: UInt16) {
        var response = card.transmit(apdu)
        var data: [UInt8] = []
        while true {
            guard response.count >= 2 else { return (data, 0) }
            data += response.dropLast(2)
            let sw1 = response[response.count - 2]
            let sw2 = response[response.count - 1]
            if sw1 == 0x61 {
                response = card.transmit([0x00, 0xC0, 0x00, 0x00, sw2])
                continue
            }
            return (data, UInt16(sw1) << 8 | UInt16(sw2))
        }
    }

    @Test("SELECT, then NFCCTAP_MSG getInfo: 9000 and a CTAP2 getInfo response", arguments: CardProfile.builtIn)
    func apduGetInfo(profile: CardProfile) throws {
        let card = try VirtualCard(profile: profile)
        let selected = Self.exchange(card, Self.select)
        #expect(selected.sw == 0x9000)
        #expect(selected.data == Array("FIDO_2_0".utf8))

        let reply = Self.exchange(card, [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00])
        #expect(reply.sw == 0x9000)
        #expect(reply.data.first == 0x00, "CTAP2_OK")
        let info = try #require(try CBORDecoder.decode(Array(reply.data.dropFirst())).mapValue)
        #expect(info == (try card.send(.getInfo).okBody()))
        #expect(info[int: 3] == .bytes(try profile.aaguidBytes))
    }

    @Test("NFCCTAP_MSG before SELECT is refused (6985)")
    func notSelected() throws {
        let card = try VirtualCard()
        #expect(Self.exchange(card, [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]).sw == 0x6985)
    }

    @Test("a CTAP2 error travels inside a 9000 response")
    func ctapErrorOverAPDU() throws {
        let card = try VirtualCard()
        _ = Self.exchange(card, Self.select)
        let reply = Self.exchange(card, [0x80, 0x10, 0x00, 0x00, 0x01, 0x42, 0x00])
        #expect(reply.sw == 0x9000)
        #expect(reply.data == [CTAPStatus.invalidCommand.rawValue])
    }

    @Test("the default card attests with the compiled-in emulator identity")
    func attestation() throws {
        let card = try VirtualCard()
        let response = try card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: false)).okBody()
        let statement = try #require(response[int: 3]?.mapValue)
        let x5c = try #require(statement[text: "x5c"]?.arrayValue?.first?.bytesValue)
        let certificate = try X509Certificate(der: x5c)
        #expect(certificate.isSigned(by: try card.authenticator.attestation.rootCertificate.publicKey))
        let authData = try #require(response[int: 2]?.bytesValue)
        let clientDataHash = SHA256.hash(Array("make example.com".utf8))
        #expect(try certificate.publicKey.isValidSignature(try #require(statement[text: "sig"]?.bytesValue),
                                                           for: authData + clientDataHash))
    }

    @Test("power cycle drops volatile state: a PIN token stops working")
    func powerCycle() throws {
        let card = try VirtualCard()
        try PlatformPINOne.setPIN("1234", on: card)
        let token = try PlatformPINOne.token("1234", on: card)
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: true, token: token)).status == .ok)
        let second = try PlatformPINOne.token("1234", on: card)
        card.powerCycle()
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [2], rk: true, token: second)).status
                == .pinAuthInvalid)
        #expect(card.credentials.count == 1)
    }

    @Test("a card made with a clock is powered at its now and reads it for every input")
    func clock() throws {
        let clock = ManualCardClock(now: .seconds(500))
        let card = try VirtualCard(clock: clock.read)
        #expect(card.clock() == .seconds(500))
        // The reset window (10 s) counts from the power-up at 500 s: no power cycle needed.
        clock.now = .seconds(509)
        #expect(card.send(.reset).status == .ok)
        let late = try VirtualCard(clock: clock.read)
        clock.now = .seconds(520)
        #expect(late.send(.reset).status == .notAllowed, "11 s after its power-up at 509 s")
    }
}
