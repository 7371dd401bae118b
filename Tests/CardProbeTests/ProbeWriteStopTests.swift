import ArculusCard
import ArculusFidoConnectors
import CTAPClient
import CardCrypto
import CardProbe
import FIDOWire
import Foundation
import Testing
import TestSupport

/// The writing part's stop rule: it begins with authenticatorReset and stops there, before any
/// PIN entry, when the card refuses the reset (a real card does more than 10 s after power-up) or
/// still has a PIN after it; the probe fails naming why, writes no fingerprint, and the card keeps
/// its PIN, its retries and its credentials. Its PINs are random and never reach a fingerprint.
@Suite("The probe's writing part: the stop rule and its random PINs")
struct ProbeWriteStopTests {
    /// Where the writing part begins (its reset), and the battery's length with it.
    static let resetEntry = CardProber().entryCount + 1
    static let total = CardProber(includeWrites: true).entryCount

    /// A card image with the user's PIN (the README's old example PIN, which was the probe's own),
    /// 5 retries left and a discoverable credential.
    static func userCard(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("card.img")
        let card = try VirtualCard(imageAt: path)
        try card.setPIN("24681357")
        try card.setPINRetries(5)
        _ = try card.addCredential(rpId: "user.example", user: CredentialUser("alice"), discoverable: true)
        return path
    }

    @Test("a card that refuses authenticatorReset (CTAP2_ERR_NOT_ALLOWED): the probe stops before any PIN entry, naming why; PIN, retries and credential unchanged, the image byte for byte")
    func resetRefused() throws {
        let directory = try TemporaryDirectory("probe-stop")
        defer { withExtendedLifetime(directory) {} }  // its files are used after its last mention
        let path = try Self.userCard(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let card = try VirtualCard(imageAt: path)
        let credentials = card.credentials
        try card.injectFault(.ctapError(CTAPStatus.notAllowed.rawValue), on: .ctap(.reset))
        let expected = ProbeError.writesStopped(
            entry: Self.resetEntry, of: Self.total,
            reason: "authenticatorReset answered CTAP2_ERR_NOT_ALLOWED (a card allows it only just after power-up: "
                + "take the card off the reader, put it back and probe again at once)")
        #expect(throws: expected) { try Probing.fingerprint(of: card, writes: true) }
        #expect(expected.description == "the writing part stopped at entry \(Self.resetEntry) of \(Self.total), before any PIN entry: "
                + "authenticatorReset answered CTAP2_ERR_NOT_ALLOWED (a card allows it only just after power-up: take the card off "
                + "the reader, put it back and probe again at once); the card is unchanged apart from the reset; no fingerprint written")
        #expect(card.pinState.isSet && card.pinState.retries == 5, "no PIN was entered")
        #expect(card.credentials == credentials)
        #expect(card.faultLog.map(\.command) == [.ctap(CTAPCommand.reset.rawValue)], "the reset was the only write the probe sent")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A card that answers CTAP2_OK to authenticatorReset and does nothing.
    struct ResetIgnoringTransport: CardTransport {
        let card: VirtualCard

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            if apdu == [0x80, 0x10, 0x80, 0x00, 0x01, CTAPCommand.reset.rawValue, 0x00] { return [0x00, 0x90, 0x00] }
            return try VirtualCardTransport(card: card).transmit(apdu)
        }

        func powerCycle() throws(CardTransportError) { card.powerCycle() }
    }

    @Test("a card that answers the reset CTAP2_OK yet keeps its PIN: the probe stops before any PIN entry, naming why; nothing changed")
    func resetIgnored() throws {
        let directory = try TemporaryDirectory("probe-stop")
        defer { withExtendedLifetime(directory) {} }  // its files are used after its last mention
        let path = try Self.userCard(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let card = try VirtualCard(imageAt: path)
        // The check is getInfo after the reset from a fresh SELECT: the entry after the one that
        // asks getInfo with no SELECT between (which shows whether the card needs one).
        let expected = ProbeError.writesStopped(
            entry: Self.resetEntry + 2, of: Self.total,
            reason: "authenticatorReset answered CTAP2_OK, yet getInfo after it says a PIN is set (option clientPin true)")
        #expect(throws: expected) {
            try CardProber(includeWrites: true, measuresTiming: false)
                .run(on: ResetIgnoringTransport(card: card), atr: try card.profile.atrBytes, source: "a card that ignores reset")
        }
        #expect(card.pinState.isSet && card.pinState.retries == 5)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("the fingerprint does not depend on the PINs: two runs with other PINs give the same text, with none of them in it")
    func pinsLeaveNoTrace() throws {
        let first = ProbePINs(pin: "31415926", changedPIN: "27182818", wrongPIN: "16180339")
        let second = ProbePINs(pin: "86420864", changedPIN: "97531975", wrongPIN: "52805280")
        var prober = CardProber(includeWrites: true, measuresTiming: false)
        var texts: [String] = []
        for pins in [first, second] {
            prober.pins = pins
            let card = try VirtualCard()
            texts.append(try prober.run(on: VirtualCardTransport(card: card), atr: try card.profile.atrBytes,
                                        source: "the emulator (in process), profile \(card.profile.name)").text)
        }
        #expect(texts[0] == texts[1])
        let kept = try String(contentsOfFile: Repository.fixtures.appendingPathComponent("fingerprints/arculus-fido21.fingerprint.json").path,
                              encoding: .utf8)
        #expect(texts[0] == kept, "the fixture, whatever the PINs")
        for pin in [first.pin, first.changedPIN, first.wrongPIN, second.pin, second.changedPIN, second.wrongPIN] {
            #expect(!texts[0].contains(pin))
            #expect(!texts[0].contains(Hex.string(SHA256.hash(Array(pin.utf8)).prefix(16))))
        }
    }

    @Test("each run draws three different PINs of eight digits; two runs draw different ones")
    func randomPINs() {
        let drawn = (0..<8).map { _ in ProbePINs.random() }
        for pins in drawn {
            #expect(Set([pins.pin, pins.changedPIN, pins.wrongPIN]).count == 3)
            #expect([pins.pin, pins.changedPIN, pins.wrongPIN].allSatisfy { $0.count == 8 && $0.allSatisfy(\.isASCII) && Int($0) != nil })
        }
        #expect(Set(drawn.map(\.pin)).count > 1)
    }
}
