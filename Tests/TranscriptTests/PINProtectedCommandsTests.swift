import ArculusCard
import CBOR
import CTAP2
import Testing
import Transcript
import FIDOWire

/// Which requests carry a pinUvAuthParam is one table (`CTAPCommand.pinUvAuthParamKey`), read
/// by the structural replay and the stand-in alike: a structural replay stops at every such
/// request, whichever command carries it, with "needs a seeded transcript".
@Suite("Transcripts: every command with a pinUvAuthParam needs a seeded transcript")
struct PINProtectedCommandsTests {
    /// An unseeded recording on the reference card: SELECT, then `command` with a pinUvAuthParam
    /// (`key`) under no token the replaying card could know.
    static func recording(command: CTAPCommand, parameters: CBORMap) throws -> Transcript {
        let recorder = try TranscriptRecorder(card: try VirtualCard(profile: .reference))
        recorder.powerOn()
        let host = TestHost(card: recorder)
        _ = host.select()
        _ = host.ctap(command, parameters)
        return recorder.transcript
    }

    static let requests: [(CTAPCommand, CBORMap)] = [
        (.credentialManagementPreview, [.int(1): 1, .int(3): 2, .int(4): .bytes([UInt8](repeating: 9, count: 32))]),
        (.bioEnrollmentPreview, [.int(1): 1, .int(2): 4, .int(4): 2, .int(5): .bytes([UInt8](repeating: 9, count: 32))]),
        (.credentialManagement, [.int(1): 1, .int(3): 2, .int(4): .bytes([UInt8](repeating: 9, count: 32))]),
        (.config, [.int(1): 2, .int(3): 2, .int(4): .bytes([UInt8](repeating: 9, count: 32))]),
    ]

    @Test("FIDOWire's pinUvAuthParam table, structural replay: a 0x41 (and 0x40, 0x0A, 0x0D) request with a pinUvAuthParam → \"needs a seeded transcript\", not a status mismatch",
          arguments: requests.indices)
    func needsSeed(index: Int) throws {
        let (command, parameters) = Self.requests[index]
        let transcript = try Self.recording(command: command, parameters: parameters)
        #expect(transcript.header("seed") == nil)
        let mismatch = try #require(try TranscriptReplay(transcript: transcript).run().mismatch)
        #expect(mismatch.kind == .needsSeededTranscript)
        #expect(mismatch.description.contains("needs a seeded transcript\n  its pinUvAuthParam is a MAC under a PIN/UV auth token the recorded card issued"))
    }

    @Test("FIDOWire's table names the pinUvAuthParam member of each command that has one, by the specification's key names")
    func table() {
        #expect(CTAPCommand.makeCredential.pinUvAuthParamKey == MakeCredentialKey.pinUvAuthParam.rawValue)
        #expect(CTAPCommand.credentialManagementPreview.pinUvAuthParamKey == 4)
        #expect(CTAPCommand.bioEnrollmentPreview.pinUvAuthParamKey == 5)
        #expect(CTAPCommand.getInfo.pinUvAuthParamKey == nil)
        for command in CTAPCommand.allCases {
            guard let key = command.pinUvAuthParamKey, let name = command.requestMemberName(key) else { continue }
            #expect(name == "pinUvAuthParam", "\(command)")
        }
    }
}
