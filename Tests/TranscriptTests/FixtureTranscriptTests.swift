import ArculusCard
import Testing
import TestSupport
import Transcript
import FIDOWire

/// The transcripts in `Fixtures/transcripts/`, recorded from python-fido2 through pcscd and
/// vpcd by `Tests/Interop/record_fixtures.py`.
@Suite("Recorded fixtures")
struct FixtureTranscriptTests {
    /// Every scenario of record_fixtures.py, and whether its session can be replayed on an
    /// unseeded card (those with PIN/UV auth protocol exchanges cannot).
    static let expected: [String: Bool] = [
        "pin-set-and-change.transcript": false,
        "wrong-pin-lockout.transcript": false,
        "webauthn-register-authenticate.transcript": true,
        "discoverable-credentials.transcript": false,
        "credential-management.transcript": false,
        "reset.transcript": false,
        "u2f-register-authenticate.transcript": true,
        "chained-long-request.transcript": true,
        "busy-polling.transcript": true,
    ]

    static func path(_ name: String) -> String { Repository.transcripts + "/" + name }

    @Test("every recording scenario has its fixture, seeded and saying how it was made")
    func inventory() throws {
        #expect(Set(Repository.fixtureNames()) == Set(Self.expected.keys))
        for name in Repository.fixtureNames() {
            let transcript = try Transcript.load(path: Self.path(name))
            #expect(transcript.seed != nil, "\(name)")
            let source = try #require(transcript.header("source"), "\(name)")
            #expect(source.hasPrefix("python-fido2 2.2.1 via pcscd + vpcd, script record_fixtures.py::"), "\(name)")
            #expect(transcript.exchanges.count <= 60, "\(name) should stay small")
        }
    }

    @Test("each fixture replays byte for byte against the emulator", arguments: Array(expected.keys).sorted())
    func replaysExactly(name: String) throws {
        let result = try TranscriptReplay.verify(fileAt: Self.path(name))
        #expect(result.mode == .exact)
        #expect(result.exchangesReplayed == (try Transcript.load(path: Self.path(name))).exchanges.count)
    }

    @Test("each fixture, as a stand-in, answers its own commands with the recorded bytes", arguments: Array(expected.keys).sorted())
    func standInAnswersAsRecorded(name: String) throws {
        let transcript = try Transcript.load(path: Self.path(name))
        let standIn = try TranscriptStandIn(transcript: transcript, baseDirectory: Repository.transcripts)
        let result = try TranscriptReplay(transcript: transcript, mode: .exact) { standIn }.run()
        #expect(result.passed, "\(result.summary)")
        #expect(standIn.mismatches.isEmpty)
        #expect(standIn.isFinished, "\(standIn.summary)")
        #expect(standIn.summary == "stand-in: \(standIn.expectedCount) of \(standIn.expectedCount) expected requests answered, no mismatches")
    }

    @Test("without their seed, the fixtures replay structurally up to the first PIN-protected exchange",
          arguments: Array(expected.keys).sorted())
    func structurally(name: String) throws {
        var transcript = try Transcript.load(path: Self.path(name))
        transcript.headers.removeAll { $0.name == "seed" }
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .structural)
        if Self.expected[name] == true {
            #expect(result.passed, "\(result.summary)")
        } else {
            #expect(result.mismatch?.kind == .needsSeededTranscript, "\(result.summary)")
        }
    }

    @Test("the chained fixture has a request over 255 bytes in 250-byte pieces and a response through GET RESPONSE")
    func chainedFixture() throws {
        let transcript = try Transcript.load(path: Self.path("chained-long-request.transcript"))
        let make = try #require(TranscriptMessages.messages(of: transcript).first { $0.ctapCommand == .makeCredential })
        #expect((make.ctapRequest?.count ?? 0) > 255)
        #expect(make.exchanges.first?.command[0] == 0x90)
        #expect(make.exchanges.first?.command[4] == 250)
        #expect(make.exchanges.contains { $0.command.starts(with: [0x00, 0xC0]) })
    }

    @Test("the lockout fixture shows PIN_AUTH_BLOCKED until the card was taken away")
    func lockoutFixture() throws {
        let transcript = try Transcript.load(path: Self.path("wrong-pin-lockout.transcript"))
        let messages = TranscriptMessages.messages(of: transcript)
        let tokens = messages.filter { $0.name == "authenticatorClientPIN (getPinToken)" }.map { $0.ctapStatusByte }
        #expect(tokens == [CTAPStatus.pinInvalid.rawValue, CTAPStatus.pinInvalid.rawValue, CTAPStatus.pinAuthBlocked.rawValue,
                           CTAPStatus.pinAuthBlocked.rawValue, CTAPStatus.ok.rawValue])
        let blocked = try #require(messages.lastIndex { $0.ctapStatusByte == CTAPStatus.pinAuthBlocked.rawValue })
        let recovered = try #require(messages.lastIndex { $0.name == "authenticatorClientPIN (getPinToken)" })
        #expect(messages[blocked..<recovered].contains { $0.kind == .event(.powerOff) })
    }

    @Test("the busy fixture polls through 9100 answers")
    func busyFixture() throws {
        let transcript = try Transcript.load(path: Self.path("busy-polling.transcript"))
        #expect(transcript.frontOptions.busyFirst)
        let ctap = TranscriptMessages.messages(of: transcript).filter { $0.ctapRequest != nil }
        #expect(!ctap.isEmpty && ctap.allSatisfy { $0.busyPolls > 0 })
    }
}
