import ArculusCard
import Testing
import Transcript

@Suite("Transcript replay")
struct TranscriptReplayTests {
    @Test("a seeded in-process recording replays byte for byte")
    func seededRoundTrip() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .exact)
        #expect(result.passed, "\(result.summary)")
        #expect(result.exchangesReplayed == transcript.exchanges.count)
        #expect(result.summary == "\(transcript.exchanges.count) exchanges replayed, all matched (byte-exact)")
    }

    @Test("an unseeded recording replays structurally, with credential IDs substituted")
    func structuralRoundTrip() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard())
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .structural)
        #expect(result.passed, "\(result.summary)")
        #expect(result.notes.isEmpty, "\(result.notes)")
    }
}
