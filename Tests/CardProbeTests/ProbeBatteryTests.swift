import ArculusCard
import ArculusFidoConnectors
import CTAPClient
import CardCrypto
import CardProbe
import FIDOWire
import Foundation
import Testing
import TestSupport

@Suite("The probe's battery against the emulator, in process")
struct ProbeBatteryTests {
    @Test("each built-in profile reproduces its fixture (Fixtures/fingerprints/<profile>.fingerprint.json) exactly",
          arguments: CardProfile.builtIn)
    func fixtures(profile: CardProfile) throws {
        let path = Repository.fixtures.appendingPathComponent("fingerprints/\(profile.name).fingerprint.json").path
        let kept = try String(contentsOfFile: path, encoding: .utf8)
        let probed = try Probing.fingerprint(profile)
        #expect(probed.text == kept, "run 'arculus-card probe fixtures' and review the change")
        #expect(try Fingerprint(path: path) == probed)
        #expect(probed.probes.count == probed.battery.entries, "every entry has an ID of its own")
        #expect(probed.battery.entries == CardProber(includeWrites: true).entryCount)
    }

    @Test("a fingerprint holds no secret: two cards with different secrets give the same file; no PIN, PIN hash or long hex in it")
    func noSecret() throws {
        let pins = ProbePINs(pin: "24681357", changedPIN: "13572468", wrongPIN: "99999999")
        let first = try Probing.fingerprint(of: try VirtualCard(entropy: .seeded([1])), writes: true, pins: pins)
        let second = try Probing.fingerprint(of: try VirtualCard(entropy: .seeded([2])), writes: true, pins: pins)
        #expect(first.text == second.text)
        let text = first.text
        for pin in [pins.pin, pins.changedPIN] {
            #expect(!text.contains(pin))
            #expect(!text.contains(Hex.string(SHA256.hash(Array(pin.utf8)).prefix(16))))
        }
        // Every byte string kept as hex is the AAGUID or a one-byte CTAP status; every other is a
        // type and a length.
        let kept = Set(text.components(separatedBy: "h'").dropFirst().map { String($0.prefix { $0 != "'" }) })
        #expect(kept == ["3F59672F20AA4AFEB6F47E5E916B6D98", "01", "12"])
    }

    @Test("without writes the card's image stays byte for byte the same, PIN retries and counter included")
    func readOnlyChangesNothing() throws {
        let directory = try TemporaryDirectory("probe")
        defer { withExtendedLifetime(directory) {} }  // its files are used after its last mention
        let path = directory.file("card.img")
        do {
            let card = try VirtualCard(imageAt: path)
            try card.setPIN("123456")
            try card.setPINRetries(5)
            _ = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let card = try VirtualCard(imageAt: path)
        let state = card.pinState
        let fingerprint = try Probing.fingerprint(of: card, timing: true)
        #expect(fingerprint.battery.writes == false)
        #expect(card.pinState == state)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(fingerprint.pinState.isSet)
        #expect(fingerprint.pinState.retries == 5)
    }

    @Test("with writes the card ends blank, as the README says: reset, no PIN, no credential, retries back")
    func writesEndBlank() throws {
        let card = try VirtualCard()
        try card.setPIN("123456")
        _ = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        let fingerprint = try Probing.fingerprint(of: card, writes: true)
        #expect(fingerprint.probes["write.reset.final"]?.answer["ctap"] == "CTAP2_OK")
        #expect(card.pinState.isSet == false)
        #expect(card.credentials.isEmpty)
        #expect(card.send(.getInfo).map[int: GetInfoKey.options.rawValue]?.mapValue?[text: "clientPin"] == false)
    }

    @Test("a card without the FIDO applet: not a FIDO card, naming the status word")
    func notFIDO() throws {
        let card = try VirtualCard()
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A82)), on: .select)
        #expect(throws: ProbeError.notFIDO(statusWord: 0x6A82)) { try Probing.fingerprint(of: card) }
        #expect(ProbeError.notFIDO(statusWord: 0x6A82).description
                == "not a FIDO card: SELECT of the FIDO applet (AID A0000006472F0001) answered 6A82 (file or application not found)")
    }

    @Test("a card that leaves mid-probe: the entry it left in, by number and description; nothing is made")
    func removedMidProbe() throws {
        let card = try VirtualCard()
        try card.injectFault(.leaveField(away: .seconds(1)), on: .ctap(.clientPIN))
        let total = CardProber().entryCount
        let index = try #require(try ProbeBatteryTests.index(of: "clientPIN without parameters"))
        let expected = ProbeError.cardRemoved(during: "clientPIN without parameters", entry: index, of: total,
                                              reason: "the card left the field")
        #expect(throws: expected) { try Probing.fingerprint(of: card) }
        #expect(expected.description.hasPrefix("the card left the reader during entry \(index) of \(total) (clientPIN without parameters): "))
    }

    /// The 1-based position of the entry described `summary` (the prober's progress reports it).
    static func index(of summary: String) throws -> Int? {
        var prober = CardProber()
        var found: Int?
        prober.onEntry = { index, _, description in if description == summary && found == nil { found = index } }
        _ = try prober.run(on: VirtualCardTransport(card: try VirtualCard()), atr: [0x3B], source: "")
        return found
    }
}
