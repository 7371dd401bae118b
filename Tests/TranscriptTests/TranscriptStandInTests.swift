import ArculusCard
import Testing
import Transcript
import FIDOWire
import TestSupport

@Suite("Transcript stand-in")
struct TranscriptStandInTests {
    /// A transcript of single-APDU CTAP2 exchanges: (request, response) pairs.
    static func transcript(_ exchanges: [([UInt8], [UInt8])], headers: String = "@profile arculus-fido21\n") throws -> Transcript {
        var text = headers + "> 00A4040008A0000006472F000100\n< 4649444F5F325F309000\n"
        for (request, response) in exchanges {
            text += "> 80108000" + [UInt8(request.count)].hexString + request.hexString + "00\n"
            text += "< " + (response + [0x90, 0x00]).hexString + "\n"
        }
        return try Transcript.parse(text)
    }

    static func request(_ command: CTAPCommand, _ map: CBORMap) -> [UInt8] {
        [command.rawValue] + CBOREncoder.encode(.map(map))
    }

    static let assertionResponse: [UInt8] = [0x00] + CBOREncoder.encode(.map([1: .map(["id": .bytes([1, 2, 3]), "type": "public-key"])]))

    @Test("a host with other chunk sizes and GET RESPONSE class gets exactly what the card said")
    func otherFraming() throws {
        let recorded = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)), style: .pythonFIDO2)
        let standIn = try TranscriptStandIn(transcript: recorded)
        // The same requests in libfido2's framing (240-byte pieces, GET RESPONSE class 80, Le 00).
        let host = TestHost(card: standIn, style: .libfido2)
        for message in TranscriptMessages.messages(of: recorded) {
            switch message.kind {
            case .event(let event):
                TranscriptReplay.apply(event, to: standIn)
            case .ctap2(let request, _):
                #expect(host.ctap(raw: request) == message.response, "\(message.name)")
            case .select:
                #expect(host.select() == message.response + [0x90, 0x00])
            case .u2f(let instruction, let p1, _, let data):
                let answer = host.exchange(cla: 0x00, ins: instruction.rawValue, p1: p1, p2: 0x00, data: data)
                #expect(answer == message.response + (message.statusWord?.bytes ?? []), "\(message.name)")
            case .apdu:
                Issue.record("no raw APDUs expected in this session")
            }
        }
        #expect(standIn.mismatches.isEmpty, "\(standIn.mismatches)")
        #expect(standIn.isFinished)
    }

    @Test("host-random fields match by type and length: clientDataHash, pinUvAuthParam")
    func randomFieldsMatch() throws {
        let recorded = Self.request(.getAssertion, [1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 32)), 6: .bytes([UInt8](repeating: 2, count: 32)), 7: 2])
        let standIn = try TranscriptStandIn(transcript: try Self.transcript([(recorded, Self.assertionResponse)]))
        let host = TestHost(card: standIn)
        _ = host.select()
        let other = Self.request(.getAssertion, [1: "example.com", 2: .bytes([UInt8](repeating: 9, count: 32)), 6: .bytes([UInt8](repeating: 8, count: 32)), 7: 2])
        #expect(host.ctap(raw: other) == Self.assertionResponse)
        #expect(standIn.mismatches.isEmpty)
        #expect(standIn.isFinished)
    }

    @Test("a request that differs elsewhere is a mismatch: CTAP1_ERR_OTHER, the report, and the stand-in still waits", arguments: [
        ([1: "example.org", 2: .bytes([UInt8](repeating: 1, count: 32)), 7: 2] as CBORMap,
         "request.rpId{1}: different value: expected \"example.com\", got \"example.org\""),
        ([1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 31)), 7: 2] as CBORMap,
         "request.clientDataHash{2}: different length (32 vs 31): expected h'0101010101010101010101010101010101010101010101010101010101010101', got h'01010101010101010101010101010101010101010101010101010101010101'"),
        ([1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 32)), 7: 1] as CBORMap,
         "request.pinUvAuthProtocol{7}: different value: expected 2, got 1"),
        ([1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 32)), 5: .map(["up": false]), 7: 2] as CBORMap,
         "request.options{5}: unexpected field: expected nothing, got {\"up\": false}"),
        ([1: "example.com", 2: .text("not bytes"), 7: 2] as CBORMap,
         "request.clientDataHash{2}: different type (byte string vs text string): expected h'0101010101010101010101010101010101010101010101010101010101010101', got \"not bytes\""),
    ])
    func mismatch(request: CBORMap, expected: String) throws {
        let recorded = Self.request(.getAssertion, [1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 32)), 7: 2])
        let standIn = try TranscriptStandIn(transcript: try Self.transcript([(recorded, Self.assertionResponse)]))
        var reported: [StandInMismatch] = []
        standIn.onMismatch = { reported.append($0) }
        let host = TestHost(card: standIn)
        _ = host.select()
        #expect(host.ctap(raw: Self.request(.getAssertion, request)) == [CTAPStatus.other.rawValue])
        let mismatch = try #require(standIn.mismatches.first)
        #expect(reported == standIn.mismatches)
        #expect(mismatch.expectedLine == 4)
        #expect(mismatch.expected == "authenticatorGetAssertion")
        #expect(mismatch.difference.map { "\($0)" } == expected)
        #expect(mismatch.description.hasPrefix("stand-in mismatch: expected authenticatorGetAssertion (transcript line 4), "
                                               + "got authenticatorGetAssertion; answered CTAP1_ERR_OTHER (0x7F)\n  first difference: \(expected)\n  request: "))
        // Still waiting for the recorded request, which then gets the recorded answer.
        #expect(host.ctap(raw: recorded) == Self.assertionResponse)
        #expect(standIn.isFinished)
        #expect(standIn.summary == "stand-in: 1 of 1 expected requests answered, 1 mismatch")
    }

    @Test("another command than expected, and anything after the end, are mismatches")
    func wrongCommandAndExtra() throws {
        let info = [CTAPCommand.getInfo.rawValue]
        let standIn = try TranscriptStandIn(transcript: try Self.transcript([(info, [0x00, 0xA0])]))
        let host = TestHost(card: standIn)
        _ = host.select()
        #expect(host.ctap(raw: [CTAPCommand.reset.rawValue]) == [0x7F])
        #expect(host.ctap(raw: info) == [0x00, 0xA0])
        #expect(host.ctap(raw: info) == [0x7F])
        #expect(standIn.mismatches.map(\.description) == [
            "stand-in mismatch: expected authenticatorGetInfo (transcript line 4), got authenticatorReset; answered CTAP1_ERR_OTHER (0x7F)\n"
                + "  first difference: request.command: different command: expected authenticatorGetInfo, got authenticatorReset\n"
                + "  request: 07",
            "stand-in mismatch: the transcript has no more requests, got authenticatorGetInfo; answered CTAP1_ERR_OTHER (0x7F)\n"
                + "  request: 04",
        ])
    }

    @Test("clientPIN: any valid COSE key, any newPinEnc and pinUvAuthParam of the right length; an invalid key is a mismatch")
    func keyAgreement() throws {
        let recordedKey = try Self.coseKey(seed: [1])
        let recorded = Self.request(.clientPIN, [1: 2, 2: 3, 3: recordedKey, 4: .bytes([UInt8](repeating: 4, count: 32)),
                                                 5: .bytes([UInt8](repeating: 5, count: 80))])
        let standIn = try TranscriptStandIn(transcript: try Self.transcript([(recorded, [0x00]), (recorded, [0x00])]))
        let host = TestHost(card: standIn)
        _ = host.select()
        let fresh = Self.request(.clientPIN, [1: 2, 2: 3, 3: try Self.coseKey(seed: [2]), 4: .bytes([UInt8](repeating: 7, count: 32)),
                                              5: .bytes([UInt8](repeating: 8, count: 80))])
        #expect(host.ctap(raw: fresh) == [0x00])
        var offCurve = try Self.coseKey(seed: [3]).mapValue ?? CBORMap()
        offCurve[int: -3] = .bytes([UInt8](repeating: 0, count: 32))
        let invalid = Self.request(.clientPIN, [1: 2, 2: 3, 3: .map(offCurve), 4: .bytes([UInt8](repeating: 7, count: 32)),
                                                5: .bytes([UInt8](repeating: 8, count: 80))])
        #expect(host.ctap(raw: invalid) == [0x7F])
        #expect(standIn.mismatches.first?.difference?.path.description == "request.keyAgreement{3}")
        #expect(standIn.mismatches.first?.difference?.reason == "not a valid COSE P-256 key")
    }

    @Test("hmac-secret inputs: any key agreement key, salts of the same length")
    func hmacSecret() throws {
        func assertion(key: CBORValue, saltLength: Int) -> [UInt8] {
            Self.request(.getAssertion, [1: "example.com", 2: .bytes([UInt8](repeating: 1, count: 32)),
                                         4: .map(["hmac-secret": .map([1: key, 2: .bytes([UInt8](repeating: 3, count: saltLength)),
                                                                      3: .bytes([UInt8](repeating: 4, count: 32)), 4: 2])])])
        }
        let standIn = try TranscriptStandIn(transcript: try Self.transcript([(assertion(key: try Self.coseKey(seed: [1]), saltLength: 48), Self.assertionResponse)]))
        let host = TestHost(card: standIn)
        _ = host.select()
        #expect(host.ctap(raw: assertion(key: try Self.coseKey(seed: [2]), saltLength: 80)) == [0x7F])
        #expect(standIn.mismatches.first?.difference?.description
                .hasPrefix("request.extensions{4}.hmac-secret{2}: different length (48 vs 80)") == true)
        #expect(host.ctap(raw: assertion(key: try Self.coseKey(seed: [2]), saltLength: 48)) == Self.assertionResponse)
    }

    @Test("U2F: any challenge; another application is answered 6F00")
    func u2f() throws {
        let card = try VirtualCard(entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card)
        let application = [UInt8](repeating: 0xA1, count: 32)
        let recordingHost = TestHost(card: recorder)
        _ = recordingHost.select()
        let registration = recordingHost.u2fRegister(challenge: [UInt8](repeating: 1, count: 32), application: application)
        let standIn = try TranscriptStandIn(transcript: recorder.transcript)
        let host = TestHost(card: standIn)
        _ = host.select()
        #expect(host.u2fRegister(challenge: [UInt8](repeating: 1, count: 32), application: [UInt8](repeating: 0xB2, count: 32)) == [0x6F, 0x00])
        #expect(standIn.mismatches.first?.difference?.path.description == "request.application")
        let answer = host.u2fRegister(challenge: [UInt8](repeating: 7, count: 32), application: application)
        #expect(answer == registration)
        #expect(standIn.isFinished)
    }

    @Test("SELECT answer and ATR come from the transcript; events in it are skipped")
    func selectAndATR() throws {
        let transcript = try Transcript.parse("""
        @atr 3B00
        ! power-on
        > 00A4040008A0000006472F000100
        < 5532465F56329000
        ! power-off
        ! power-on
        > 8010800006A20101020200
        < 009000
        """)
        let standIn = try TranscriptStandIn(transcript: transcript)
        #expect(standIn.atr == [0x3B, 0x00])
        #expect(standIn.transmit(NFCBinding.selectFIDOApplet) == Array("U2F_V2".utf8) + [0x90, 0x00])
        #expect(standIn.expectedCount == 1)
        let defaulted = try TranscriptStandIn(transcript: try Transcript.parse("@profile arculus-fido2\n> 00A4040000\n< 6A82\n"))
        #expect(defaulted.atr == (try CardProfile.arculusFIDO2.atrBytes))
    }

    /// An ephemeral COSE EC2 key like a platform's, made by an emulated card's getKeyAgreement.
    static func coseKey(seed: [UInt8]) throws -> CBORValue {
        let card = try VirtualCard(entropy: .seeded(seed))
        guard let key = card.send(.clientPIN, [1: 2, 2: 2]).map[int: 1] else { throw TestFailure("no key") }
        return key
    }
}
