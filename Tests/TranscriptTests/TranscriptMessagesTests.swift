import ArculusCard
import Testing
import Transcript
import FIDOWire

@Suite("Logical messages from APDUs")
struct TranscriptMessagesTests {
    /// A makeCredential whose request is over 500 bytes (so 3 pieces at 240 or 250 bytes) and
    /// whose response needs GET RESPONSE.
    static func longMakeCredential() -> CBORMap {
        Requests.makeCredential(user: String(repeating: "a-long-user-name-", count: 12), rk: true,
                                excludeList: [[UInt8](repeating: 1, count: 64), [UInt8](repeating: 2, count: 64)])
    }

    /// Records SELECT, getInfo and a long makeCredential from a host of `style`.
    static func record(style: TestHost.Style, front: CardFront.Options = .init()) throws -> (Transcript, [UInt8]) {
        let card = try VirtualCard(frontOptions: front, entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card)
        var host = TestHost(card: recorder)
        host.style = style
        _ = host.select()
        _ = try host.ctapBody(.getInfo)
        let request = [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(.map(longMakeCredential()))
        let response = host.ctap(raw: request)
        #expect(response.first == 0x00)
        return (recorder.transcript, request)
    }

    @Test("chained requests and 61xx responses join into one message, whatever the client's chunk size",
          arguments: [("python-fido2", TestHost.Style.pythonFIDO2, 250), ("libfido2", TestHost.Style.libfido2, 240)])
    func chaining(client: String, style: TestHost.Style, chunk: Int) throws {
        let (transcript, request) = try Self.record(style: style)
        let messages = TranscriptMessages.messages(of: transcript)
        #expect(messages.map(\.name) == ["SELECT", "authenticatorGetInfo", "authenticatorMakeCredential"])
        let make = messages[2]
        #expect(make.kind == .ctap2(request: request, p1: 0x80))
        #expect(make.statusWord == .success)
        #expect(make.isComplete)
        let pieces = (request.count + chunk - 1) / chunk
        let commands = make.exchanges.map(\.command)
        #expect(commands.prefix(pieces - 1).allSatisfy { $0[0] == 0x90 && $0[4] == UInt8(chunk) })
        #expect(commands[pieces - 1][0] == 0x80)
        #expect(commands.dropFirst(pieces).allSatisfy { $0[1] == 0xC0 && $0[0] == style.getResponseClass })
        #expect(make.exchanges.count > pieces, "the response came through GET RESPONSE")
        // The joined response is what the authenticator said, with no status words in between.
        let direct = try VirtualCard(entropy: .seeded(testSeed))
        _ = direct.ctap2([CTAPCommand.getInfo.rawValue])
        #expect(make.response == direct.ctap2(request))
        #expect(make.line == transcript.line(ofEntry: make.entries.lowerBound))
    }

    @Test("python-fido2 and libfido2 framings give the same logical messages")
    func framingDoesNotMatter() throws {
        let python = TranscriptMessages.messages(of: try Self.record(style: .pythonFIDO2).0)
        let libfido2 = TranscriptMessages.messages(of: try Self.record(style: .libfido2).0)
        #expect(python.map(\.kind) == libfido2.map(\.kind))
        #expect(python.map(\.response) == libfido2.map(\.response))
        #expect(python.map(\.exchanges) != libfido2.map(\.exchanges))
    }

    @Test("9100 answers and NFCCTAP_GETRESPONSE polls join the message; keepalive bytes are dropped")
    func polling() throws {
        let (transcript, request) = try Self.record(style: .pythonFIDO2, front: CardFront.Options(busyFirst: true, busyPolls: 2))
        let messages = TranscriptMessages.messages(of: transcript)
        let make = try #require(messages.last)
        #expect(make.kind == .ctap2(request: request, p1: 0x80))
        #expect(make.busyPolls == 3)
        #expect(make.exchanges.filter { $0.command.starts(with: [0x80, 0x11, 0x00, 0x00]) }.count == 3)
        #expect(make.response.first == 0x00)
        #expect((try make.responseCBOR())?.mapValue?[int: 1] == "packed")
        #expect(messages[1].busyPolls == 3 && messages[1].ctapCommand == .getInfo)
    }

    @Test("a cancelled NFCCTAP message ends with CTAP2_ERR_KEEPALIVE_CANCEL")
    func cancel() throws {
        let transcript = try Transcript.parse("""
        > 80108000010400
        < 019100
        > 80111100
        < 2D9000
        """)
        let messages = TranscriptMessages.messages(of: transcript)
        #expect(messages.count == 1)
        #expect(messages[0].response == [0x2D])
        #expect(messages[0].busyPolls == 1)
        #expect(messages[0].isComplete)
    }

    @Test("APDUs that belong to nothing stay single raw exchanges; events end open messages and keep their place")
    func rawAndEvents() throws {
        let transcript = try Transcript.parse("""
        ! power-on
        > 00C0000000
        < 6985
        > 00
        < 6700
        > 00CA000000
        < 6D00
        > 90108000FA\(String(repeating: "AB", count: 250))
        < 9000
        ! power-off
        ! power-on
        > 90108000FA\(String(repeating: "AB", count: 250))
        < 9000
        > 00A4040008A0000006472F000100
        < 4649444F5F325F309000
        > 80108000054201020304
        < 61FF
        """)
        let messages = TranscriptMessages.messages(of: transcript)
        #expect(messages.map(\.name) == ["! power-on", "GET RESPONSE APDU", "APDU", "APDU", "NFCCTAP_MSG APDU", "! power-off", "! power-on",
                                         "NFCCTAP_MSG APDU", "SELECT", "CTAP command 0x42"])
        #expect(messages.map(\.line) == [1, 2, 4, 6, 8, 10, 11, 12, 14, 16])
        #expect(messages.map(\.statusWord) == [nil, .conditionsNotSatisfied, .wrongLength, .insNotSupported, .success, nil, nil,
                                               .success, .success, .bytesRemaining(255)])
        #expect(messages.last?.isComplete == false, "the 61xx was never followed up")
        #expect(messages.dropLast().allSatisfy { $0.isComplete })
    }

    @Test("a chained piece the card refuses ends the message with that status word")
    func refusedPiece() throws {
        let transcript = try Transcript.parse("""
        > 90108000FA\(String(repeating: "01", count: 250))
        < 6700
        > 80108000010400
        < 009000
        """)
        let messages = TranscriptMessages.messages(of: transcript)
        #expect(messages.count == 2)
        #expect(messages[0].kind == .ctap2(request: [UInt8](repeating: 1, count: 250), p1: 0x80))
        #expect(messages[0].statusWord == .wrongLength)
        #expect(messages[1].ctapCommand == .getInfo)
    }

    @Test("U2F REGISTER and AUTHENTICATE with their whole data; comments do not split a message")
    func u2f() throws {
        let card = try VirtualCard(entropy: .seeded(testSeed))
        let recorder = try TranscriptRecorder(card: card)
        let host = TestHost(card: recorder)
        _ = host.select()
        let application = [UInt8](repeating: 0xA1, count: 32)
        let registration = host.u2fRegister(challenge: [UInt8](repeating: 0xC1, count: 32), application: application)
        recorder.comment("a comment between two APDUs of nothing in particular")
        let keyHandle = Array(registration[67..<67 + Int(registration[66])])
        _ = host.u2fAuthenticate(challenge: [UInt8](repeating: 0xC2, count: 32), application: application, keyHandle: keyHandle)
        let messages = TranscriptMessages.messages(of: recorder.transcript)
        #expect(messages.map(\.name) == ["SELECT", "U2F_REGISTER", "U2F_AUTHENTICATE (enforce-user-presence-and-sign)"])
        #expect(messages[1].kind == .u2f(instruction: .u2fRegister, p1: 0x03, p2: 0x00,
                                         data: [UInt8](repeating: 0xC1, count: 32) + application))
        #expect(messages[1].response == Array(registration.dropLast(2)))
        #expect(messages[1].exchanges.count > 1)
        #expect(messages[2].statusWord == .success)
    }

    @Test("CBOR that does not decode is an error naming the line")
    func undecodableCBOR() throws {
        let transcript = try Transcript.parse("""
        @format 1

        > 8010800002011F00
        < 00FF9000
        """)
        let message = try #require(TranscriptMessages.messages(of: transcript).first)
        var requestReason = ""
        do { _ = try CBORDecoder.decode([0x1F]) } catch { requestReason = "\(error)" }
        #expect(throws: TranscriptError(line: 3, message: "authenticatorMakeCredential request is not valid CBOR: \(requestReason)")) {
            try message.requestCBOR()
        }
        var responseReason = ""
        do { _ = try CBORDecoder.decode([0xFF]) } catch { responseReason = "\(error)" }
        #expect(throws: TranscriptError(line: 3, message: "authenticatorMakeCredential response is not valid CBOR: \(responseReason)")) {
            try message.responseCBOR()
        }
    }

    @Test("clientPIN and credentialManagement are named with their subcommand")
    func subcommandNames() throws {
        let transcript = try Transcript.parse("""
        > 801080000606A20102020500
        < 319000
        > 80108000060AA2010602A000
        < 009000
        > 80108000010B00
        < 009000
        """)
        #expect(TranscriptMessages.messages(of: transcript).map(\.name)
                == ["authenticatorClientPIN (getPinToken)", "authenticatorCredentialManagement (deleteCredential)", "authenticatorSelection"])
    }
}
