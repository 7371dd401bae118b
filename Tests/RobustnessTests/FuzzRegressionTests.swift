import CBOR
import ArculusCard
import Foundation
import Testing
import Transcript

/// Inputs the fuzz targets (Tests/Fuzz, ./fuzz.sh) reported, kept as regression tests. Each input
/// is also a `regression-*` seed in Fixtures/fuzz/<target>/.
@Suite("Fuzz findings")
struct FuzzRegressionTests {
    /// Finding (`transcript` target, crash-8c0ab95c…): a carriage return at the end of a header
    /// name or value, of a note or comment, or several before a line end, was kept by the parser;
    /// printing put it before the "\n", where it reads as part of a CRLF line end, so the printed
    /// transcript parsed back to a different one (header "mat=\r" came back as "mat=").
    @Test("a transcript with stray carriage returns prints to text that parses back the same",
          arguments: [
              "@mat=\r \r\n@rro=\r\n@0\n",              // the fuzzer's input
              "@[\0\r        \t",                       // the first one it found
              "! power-on\n# a comment\r\r\r\n",
              "@source someone\r\t\n! power-on\n",
              "! power-on\n> 00A4040000  # a note\r \n< 9000\n",
              "@profile arculus-fido21\r\r\n@image blank\r\n! power-on\r\n",
          ])
    func transcriptCarriageReturns(_ text: String) throws {
        let transcript = try Transcript.parse(text)
        let printed = transcript.text
        var expected = transcript
        if transcript.header("format") == nil {
            expected.headers.insert(Transcript.Header("format", String(Transcript.formatVersion)), at: 0)
        }
        let reparsed = try Transcript.parse(printed)
        #expect(reparsed == expected, "printed as \(printed.debugDescription)")
        #expect(reparsed.text == printed)
    }

    /// Finding (`transcript` target, crash-2b5d4258…): a comment between the first `>` line and
    /// its `<` was kept, before the exchange; printed, it came before every entry, where comments
    /// are not kept, so the printed transcript parsed back without it.
    @Test("a comment inside the first exchange is treated the same when the printed text is read back",
          arguments: [
              "> 00A4040000\n# between\n< 9000\n",
              "@format 1\n# before\n> 00A4040000\n# between\n< 9000\n# after\n> 00C0000000\n# inside\n< 6985\n",
          ])
    func transcriptCommentInsideFirstExchange(_ text: String) throws {
        try transcriptCarriageReturns(text)
    }

    /// Finding (`transcript` target, crash-ceff7b4d…): a header name or a note that began with a
    /// combining mark after a tab (`@\t\u{0E38}…`, `# \t\u{301}…`) was read with the tab trimmed
    /// and the mark kept; printed, the mark followed `@` or `# ` directly and joined it into one
    /// Character, so the printed header no longer parsed ("unknown line kind '@ุ'") and the printed
    /// note came back with a space in front.
    @Test("a name or note that begins with a combining mark prints to text that parses back the same",
          arguments: [
              "@\t\u{0E38}name value\n",                // the fuzzer's header, shortened
              "@\t\u{301}x\n",
              "@format 1\n@\t\u{0E38}\u{FFFD}\u{FFFD} 1\n! power-on\n",
              "> 00A4040000  #\t\u{301}note\n< 9000\n",
              "! power-on\n> 00A4040000  # \t\u{0E38}\n< 9000\n",
          ])
    func transcriptCombiningMarks(_ text: String) throws {
        try transcriptCarriageReturns(text)
    }

    /// Finding (`vpcd` target, crash-e73046a9…): a vpcd client that powered the card off and then
    /// sent clientPIN without powering it on again stopped the whole process: the authenticator's
    /// session had no PIN/UV protocol state after power-off and `keyAgreementKey` trapped. A
    /// command can reach a card only through a field that powers it, so it now powers the card on
    /// first and is answered as by a card just tapped.
    @Test("a command sent after power-off without power-on is answered as by a card just tapped",
          arguments: CardProfile.builtIn)
    func commandAfterPowerOff(_ profile: CardProfile) throws {
        let card = try makeCard(profile)
        card.powerOff()
        let agreement = card.send(.clientPIN, [.int(1): .int(profile.pinUvAuthProtocols.last ?? 1), .int(2): 2])
        #expect(agreement.status == .ok)
        #expect(agreement.body?.mapValue?[int: 1]?.mapValue?[int: 1] == .int(2), "a COSE EC2 key")
        card.powerOff()
        #expect(card.transmit(APDU.select) == Array(profile.selectResponse.utf8) + [0x90, 0x00])
        card.powerOff()
        if profile.supportsU2F {
            let register = card.u2fRegister(challenge: Array(repeating: 1, count: 32), application: Array(repeating: 2, count: 32))
            guard case .success(let bytes) = register else {
                Issue.record("U2F register after power-off: \(register)")
                return
            }
            #expect(bytes.first == 0x05)
        }
    }

    /// The committed regression seeds still pass every target's checks in-process where they can.
    @Test("the transcript regression seeds round-trip")
    func transcriptSeeds() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/fuzz/transcript")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix("regression-") {
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            guard let transcript = try? Transcript.parse(text) else { continue }
            let printed = transcript.text
            #expect(try Transcript.parse(printed).text == printed, "\(name)")
        }
    }
}
