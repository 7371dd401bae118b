import ArculusCard
import Foundation
import Testing
import Transcript
import FIDOWire
import TestSupport

@Suite("Transcript replay")
struct TranscriptReplayTests {
    /// A session with no getInfo, so a changed card model shows first in makeCredential.
    static func registerAndAuthenticate(card: any TranscriptCard) throws -> Transcript {
        let recorder: TranscriptRecorder
        if let virtual = card as? VirtualCard {
            recorder = try TranscriptRecorder(card: virtual)
        } else {
            recorder = TranscriptRecorder(card: card, headers: [])
        }
        let host = TestHost(card: recorder)
        _ = host.select()
        let made = try host.ctapBody(.makeCredential, Requests.makeCredential())
        let id = try Requests.credentialID(made)
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(allow: [id]))
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(allow: [id], clientData: "second"))
        return recorder.transcript
    }

    static func modified(_ change: (inout CardProfile) -> Void) -> CardProfile {
        var profile = CardProfile.default
        change(&profile)
        return profile
    }

    // MARK: - Passing replays

    @Test("a seeded in-process recording replays byte for byte", arguments: [TestHost.Style.pythonFIDO2, .libfido2])
    func seededRoundTrip(style: TestHost.Style) throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)), style: style)
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .exact)
        #expect(result.passed, "\(result.summary)")
        #expect(result.exchangesReplayed == transcript.exchanges.count)
        #expect(result.summary == "\(transcript.exchanges.count) exchanges replayed, all matched (byte-exact)")
    }

    @Test("a seeded makeCredential and getAssertions, recorded on each built-in profile, replay byte for byte (the attestation certificate included)",
          arguments: CardProfile.builtIn)
    func seededOnEveryProfile(profile: CardProfile) throws {
        let transcript = try Self.registerAndAuthenticate(card: try VirtualCard(profile: profile, entropy: .seeded(testSeed)))
        #expect(transcript.header("profile") == profile.name)
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .exact)
        #expect(result.passed, "\(result.summary)")
        #expect(result.exchangesReplayed == transcript.exchanges.count)
    }

    @Test("an unseeded recording replays structurally: IDs substituted, signatures and counters checked",
          arguments: [TestHost.Style.pythonFIDO2, .libfido2])
    func structuralRoundTrip(style: TestHost.Style) throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(), style: style)
        let result = try TranscriptReplay(transcript: transcript).run()
        #expect(result.mode == .structural)
        #expect(result.passed, "\(result.summary)")
        #expect(result.notes.isEmpty, "\(result.notes)")
        #expect(result.summary == "\(transcript.exchanges.count) exchanges replayed, all matched (structural)")
    }

    @Test("a seeded recording also passes a structural replay")
    func seededStructurally() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let result = try TranscriptReplay(transcript: transcript, mode: .structural).run()
        #expect(result.passed, "\(result.summary)")
    }

    @Test("matched messages are reported in order, events included")
    func progress() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let replay = TranscriptReplay(transcript: transcript)
        var names: [String] = []
        replay.onMatch = { names.append($0.name) }
        let result = try replay.run()
        #expect(names == TranscriptMessages.messages(of: transcript).map(\.name))
        #expect(result.messagesReplayed == names.count)
    }

    // MARK: - Broken cards

    @Test("a card that declines user presence: the report names the command and the CTAP status")
    func userDeclines() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let replay = TranscriptReplay(transcript: transcript) {
            let card = try ReplayCard(transcript: transcript, baseDirectory: nil)
            card.card.userPresence = { false }
            return card
        }
        let mismatch = try #require(try replay.run().mismatch)
        let make = try #require(TranscriptMessages.messages(of: transcript).first { $0.ctapCommand == .makeCredential })
        #expect(mismatch.kind == .mismatch)
        #expect(mismatch.command == "authenticatorMakeCredential")
        #expect(mismatch.line == make.line)
        #expect(mismatch.difference == FieldDifference(path: FieldPath("status"), expected: "CTAP2_OK",
                                                       actual: "CTAP2_ERR_OPERATION_DENIED", reason: "different CTAP status"))
        let report = mismatch.description.split(separator: "\n").map(String.init)
        #expect(report[0] == "replay mismatch at transcript line \(make.line): authenticatorMakeCredential (byte-exact replay, 2 exchanges matched before it)")
        #expect(report[1] == "  first difference: status: different CTAP status: expected CTAP2_OK, got CTAP2_ERR_OPERATION_DENIED")
        #expect(report[2].hasPrefix("  expected: 9000 (success) CTAP2_OK {1: \"packed\", 2: h'"))
        #expect(report[3] == "  actual:   9000 (success) CTAP2_ERR_OPERATION_DENIED")
    }

    @Test("a card model with another maxMsgSize: getInfo differs at response.maxMsgSize{5}",
          arguments: [ReplayMode.exact, .structural])
    func otherMaxMsgSize(mode: ReplayMode) throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let profile = Self.modified { $0.maxMsgSize = 1500 }
        let replay = TranscriptReplay(transcript: transcript, mode: mode) { try VirtualCard(profile: profile, entropy: .seeded(testSeed)) }
        let mismatch = try #require(try replay.run().mismatch)
        #expect(mismatch.command == "authenticatorGetInfo")
        #expect(mismatch.difference == FieldDifference(path: FieldPath("response", [.key(.int(5), name: "maxMsgSize")]),
                                                       expected: "2048", actual: "1500", reason: "different value"))
        #expect(mismatch.description.contains("first difference: response.maxMsgSize{5}: different value: expected 2048, got 1500"))
        #expect(mismatch.description.contains("(\(mode.rawValue) replay, 1 exchange matched before it)"))
    }

    /// Card models that differ from the default in one thing a makeCredential shows.
    enum ProfileChange: String, CaseIterable, Sendable {
        case otherAAGUID, noAttestation, selfAttestation

        var profile: CardProfile {
            TranscriptReplayTests.modified { profile in
                switch self {
                case .otherAAGUID: profile.aaguid = "00000000-0000-0000-0000-000000000001"
                case .noAttestation: profile.attestation = .none
                case .selfAttestation: profile.attestation = .`self`
                }
            }
        }

        var expectedDifference: String {
            switch self {
            case .otherAAGUID:
                "response.authData{2}.aaguid: different value: expected h'3f59672f20aa4afeb6f47e5e916b6d98', got h'00000000000000000000000000000001'"
            case .noAttestation:
                "response.fmt{1}: different value: expected \"packed\", got \"none\""
            case .selfAttestation:
                "response.attStmt{3}.x5c: missing: expected [h'308202763082021da003020102021001…' /634 bytes/], got nothing"
            }
        }
    }

    @Test("structural replay catches a changed constant field", arguments: ProfileChange.allCases)
    func structuralCatchesChanges(change: ProfileChange) throws {
        let transcript = try Self.registerAndAuthenticate(card: try VirtualCard())
        let profile = change.profile
        let result = try TranscriptReplay(transcript: transcript) { try VirtualCard(profile: profile) }.run()
        let mismatch = try #require(result.mismatch)
        #expect(mismatch.command == "authenticatorMakeCredential")
        #expect(mismatch.difference.map { "\($0)" } == change.expectedDifference)
    }

    @Test("structural replay verifies assertion signatures and counters", arguments: [
        (FaultyCard.Fault.signature, "response.signature{3}: assertion signature does not verify"),
        (.counter, "response.authData{2}.signCount: signature counter did not increase: expected more than 1, got 0"),
        // The boundary: a counter equal to the previous one has not increased either (the card signs
        // it, so only the counter check can catch it).
        (.repeatedCounter, "response.authData{2}.signCount: signature counter did not increase: expected more than 1, got 1"),
    ])
    func faultyCard(fault: FaultyCard.Fault, expected: String) throws {
        let transcript = try Self.registerAndAuthenticate(card: try VirtualCard())
        let result = try TranscriptReplay(transcript: transcript) { FaultyCard(try VirtualCard(), fault: fault) }.run()
        let mismatch = try #require(result.mismatch)
        #expect(mismatch.command == "authenticatorGetAssertion")
        let difference = try #require(mismatch.difference)
        #expect("\(difference.path): \(difference.reason)" + (fault == .signature ? "" : ": expected \(difference.expected), got \(difference.actual)")
                == expected)
        // A byte-exact replay of a seeded session catches the same faults.
        let seeded = try Self.registerAndAuthenticate(card: try VirtualCard(entropy: .seeded(testSeed)))
        #expect(!(try TranscriptReplay(transcript: seeded) { FaultyCard(try VirtualCard(entropy: .seeded(testSeed)), fault: fault) }.run().passed))
    }

    @Test("an exchange protected by the PIN/UV auth protocol stops a structural replay: it needs a seeded transcript")
    func needsSeed() throws {
        let path = Repository.transcripts + "/pin-set-and-change.transcript"
        var transcript = try Transcript.load(path: path)
        transcript.headers.removeAll { $0.name == "seed" }
        let result = try TranscriptReplay(transcript: transcript).run()
        let mismatch = try #require(result.mismatch)
        let setPIN = try #require(TranscriptMessages.messages(of: transcript).first { $0.name == "authenticatorClientPIN (setPIN)" })
        #expect(mismatch.kind == .needsSeededTranscript)
        #expect(mismatch.line == setPIN.line)
        #expect(mismatch.description.hasPrefix("replay stopped at transcript line \(setPIN.line): authenticatorClientPIN (setPIN) needs a seeded transcript\n"
                                               + "  it carries the host's key-agreement key and data encrypted to the recorded card's key (clientPIN keyAgreement)\n"))
    }

    @Test("without its power events a lockout session no longer replays")
    func eventsAreApplied() throws {
        let path = Repository.transcripts + "/wrong-pin-lockout.transcript"
        #expect(try TranscriptReplay.verify(fileAt: path).passed)
        var transcript = try Transcript.load(path: path)
        let firstRetap = try #require(transcript.entries.firstIndex(of: .event(.powerOff)))
        transcript.entries.removeSubrange(firstRetap..<firstRetap + 3)  // power-off, power-off, power-on
        let mismatch = try #require(try TranscriptReplay(transcript: transcript).run().mismatch)
        #expect(mismatch.command == "authenticatorClientPIN (getKeyAgreement)", "the card kept its key agreement key")
    }

    @Test("a byte-exact report points at the APDU that differed and the message it belongs to")
    func apduLine() throws {
        let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
        let make = try #require(TranscriptMessages.messages(of: transcript).first { $0.ctapCommand == .makeCredential })
        // Change one byte of the second GET RESPONSE answer (inside the certificate).
        var changed = transcript
        let index = make.entries.lowerBound + 2
        guard case .exchange(let command, var response, let note) = changed.entries[index] else {
            Issue.record("expected an exchange")
            return
        }
        response[10] ^= 0xFF
        changed.entries[index] = .exchange(command: command, response: response, note: note)
        let mismatch = try #require(try TranscriptReplay(transcript: changed).run().mismatch)
        #expect(mismatch.line == transcript.line(ofEntry: index))
        #expect(mismatch.messageLine == make.line)
        #expect(mismatch.description.hasPrefix("replay mismatch at transcript line \(transcript.line(ofEntry: index)) (message from line \(make.line)): authenticatorMakeCredential"))
        #expect(mismatch.difference?.path.description == "response.attStmt{3}.x5c[0]")
    }

    // MARK: - Setup

    @Test("verify(fileAt:) throws the report for a tampered file")
    func verifyThrows() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let path = folder.file("tampered.transcript")
        let text = try String(contentsOfFile: Repository.transcripts + "/pin-set-and-change.transcript", encoding: .utf8)
        try text.replacingOccurrences(of: "< 00A2030804F49000", with: "< 00A2030704F49000").write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ReplayMismatch.self) { try TranscriptReplay.verify(fileAt: path) }
        #expect(error?.difference?.description == "response.pinRetries{3}: different value: expected 7, got 8")
        #expect(error?.command == "authenticatorClientPIN (getPINRetries)")
    }

    @Test("an unknown profile in the headers is a setup error")
    func unknownProfile() throws {
        let transcript = try Transcript.parse("@profile nope\n! power-on\n> 00A4040000\n< 6A82\n")
        #expect(throws: ReplaySetupError("profile: unknown profile 'nope': use one of arculus-fido21, arculus-fido2, ctap-reference or a path to a profile JSON file")) {
            try TranscriptReplay(transcript: transcript).run()
        }
    }

    @Test("a profile file or card image the headers name but that is missing is a setup error naming it")
    func missingFiles() throws {
        let folder = try TemporaryDirectory("TranscriptTests")
        let profile = try Transcript.parse("@profile missing.json\n! power-on\n> 00A4040000\n< 6A82\n")
        #expect(throws: ReplaySetupError("profile: cannot read profile \(folder.file("missing.json")): there is no such file")) {
            try TranscriptReplay(transcript: profile, baseDirectory: folder.path).run()
        }
        let image = try Transcript.parse("@image missing.image\n! power-on\n> 00A4040000\n< 6A82\n")
        #expect(throws: ReplaySetupError("cannot copy the card image \(folder.file("missing.image")): there is no such file")) {
            try TranscriptReplay(transcript: image, baseDirectory: folder.path).run()
        }
    }

    @Test("the profile and card image can be chosen instead of the headers'")
    func overrides() throws {
        let path = Repository.transcripts + "/u2f-register-authenticate.transcript"
        let mismatch = try #require(try TranscriptReplay(transcript: try Transcript.load(path: path), profile: "arculus-fido2").run().mismatch)
        #expect(mismatch.difference?.path.description == "response.versions{1}")
    }
}

/// A card that damages its getAssertion answers: the signature, or the signature counter (set
/// to 0 in the answer, or signed again at the previous answer's value).
final class FaultyCard: TranscriptCard {
    enum Fault: Sendable { case signature, counter, repeatedCounter }
    let card: VirtualCard
    let fault: Fault

    init(_ card: VirtualCard, fault: Fault) {
        self.card = card
        self.fault = fault
    }

    func powerOn() { card.powerOn() }
    func powerOff() { card.powerOff() }

    func transmit(_ apdu: [UInt8]) -> [UInt8] {
        // getAssertion requests and answers fit in one APDU here: 80 10 P1 00 Lc 02 ...
        let isGetAssertion = apdu.count > 5 && apdu[0] == 0x80 && apdu[1] == 0x10 && apdu[5] == CTAPCommand.getAssertion.rawValue
        if isGetAssertion, fault == .repeatedCounter {
            // The card signs the next assertion with the counter its last answer had.
            let counter = card.pinState.signatureCounter
            if counter > 0 { try? card.setSignatureCounter(counter - 1) }
        }
        let response = card.transmit(apdu)
        guard isGetAssertion, fault != .repeatedCounter, response.suffix(2) == [0x90, 0x00], response.first == 0x00,
              var map = (try? CBORDecoder.decode(Array(response.dropFirst().dropLast(2))))?.mapValue else { return response }
        switch fault {
        case .signature:
            guard var signature = map[int: 3]?.bytesValue else { return response }
            signature[signature.count - 1] ^= 0x01
            map[int: 3] = .bytes(signature)
        case .repeatedCounter:
            return response
        case .counter:
            guard var authData = map[int: 2]?.bytesValue else { return response }
            authData.replaceSubrange(33..<37, with: [0, 0, 0, 0])
            map[int: 2] = .bytes(authData)
        }
        return [0x00] + CBOREncoder.encode(.map(map)) + [0x90, 0x00]
    }
}
