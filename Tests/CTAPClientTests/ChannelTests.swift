import ArculusCard
import CardTestSupport
import CTAPClient
import Testing
import FIDOWire
import TestSupport

/// The NFC binding on the wire: the exact APDUs the client sends and how it follows the card.
@Suite("NFC channel", .timeLimit(.minutes(1)))
struct ChannelTests {
    static let select = hex("00A4040008A0000006472F000100")
    static let getInfo = hex("80108000010400")

    @Test("opening sends SELECT of the FIDO AID, then getInfo in NFCCTAP_MSG with P1 80")
    func openingAPDUs() throws {
        let (client, transport) = try Fixture.client()
        #expect(transport.sent.count >= 2)
        #expect(transport.sent[0] == Self.select)
        #expect(transport.sent[1] == Self.getInfo)
        #expect(client.selectAnswer == "FIDO_2_0")
        #expect(client.info.versions == ["U2F_V2", "FIDO_2_0", "FIDO_2_1"])
        #expect(client.info.aaguid == (try CardProfile.default.aaguidBytes))
        #expect(client.info.pinUVAuthProtocols == [2, 1])
        #expect(client.info.isPINSet == false)
        #expect(client.info.supportsPermissionTokens)
        #expect(client.info.credentialManagementCommand == .credentialManagement)
        #expect(client.info.maxMessageSize == 2048)
    }

    @Test("a getInfo answer longer than 256 bytes is fetched with GET RESPONSE (61xx)")
    func responseChaining() throws {
        // The attestation object with its certificate never fits one response APDU.
        let (client, transport) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
        _ = try client.makeCredential(MakeCredentialTests.request(), token: token)
        let getResponses = transport.sent.filter { $0.count == 5 && $0[0] == 0x00 && $0[1] == 0xC0 }
        #expect(!getResponses.isEmpty)
        for (index, command) in transport.sent.enumerated() where command[1] == 0xC0 {
            let previous = transport.received[index - 1]
            #expect(previous[previous.count - 2] == 0x61, "GET RESPONSE only after 61xx")
            #expect(command[4] == previous[previous.count - 1], "Le is the SW2 of the 61xx")
        }
    }

    @Test("a message over 255 bytes is chained: CLA 90 pieces of 255, then CLA 80 with Le")
    func commandChaining() throws {
        let (client, transport) = try Fixture.clientWithPIN()
        let token = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID)
        let long = String(repeating: "x", count: 64)
        var request = MakeCredentialTests.request(user: UserEntity(id: Array(repeating: 7, count: 64), name: long + "@example.com",
                                                                   displayName: long))
        request.relyingParty.name = long
        let before = transport.sent.count
        let made = try client.makeCredential(request, token: token)
        let commands = Array(transport.sent[before...]).filter { $0[1] == 0x10 }
        #expect(commands.count >= 2)
        #expect(commands.dropLast().allSatisfy { $0[0] == 0x90 && $0[4] == 255 && $0.count == 5 + 255 })
        let last = try #require(commands.last)
        #expect(last[0] == 0x80)
        #expect(last.last == 0x00, "the last piece carries Le 00")
        #expect(made.credentialID.count > 0)
        let stored = try #require(transport.card.credentials.last)
        #expect(stored.userName == long + "@example.com")
    }

    @Test("a card that answers 9100 first is polled with NFCCTAP_GETRESPONSE until it answers")
    func polling() throws {
        let card = try VirtualCard(frontOptions: CardFront.Options(busyFirst: true, busyPolls: 3))
        let transport = VirtualCardTransport(card)
        var channel = NFCCTAPChannel(transport: transport)
        var statuses: [UInt8] = []
        channel.keepalive = { statuses.append($0) }
        #expect(try channel.selectFIDOApplet() == "FIDO_2_0")
        let response = try channel.sendCTAPMessage([0x04])
        #expect(response.first == 0x00)
        #expect(statuses == [1, 1, 1, 1], "the 9100 answer and three busy polls each carry STATUS_PROCESSING")
        let polls = transport.sent.filter { $0 == [0x80, 0x11, 0x00, 0x00, 0x00] }
        #expect(polls.count == 4)
        // The client works the same on such a card.
        let client = try CTAPClient(transport: VirtualCardTransport(try VirtualCard(frontOptions: CardFront.Options(busyFirst: true))))
        try client.setPIN(Fixture.pin)
        #expect(try client.pinRetries().retries == 8)
    }

    @Test("a card without the FIDO applet: appletNotFound with its status word")
    func noApplet() {
        let card = ScriptedCardTransport([.exchange(command: Self.select, response: [0x6A, 0x82])])
        #expect(Fixture.error { _ = try CTAPClient(transport: card) } == .appletNotFound(statusWord: 0x6A82))
    }

    @Test("a U2F-only applet: ctap2NotSupported")
    func u2fOnly() {
        let card = ScriptedCardTransport([.exchange(command: Self.select, response: Array("U2F_V2".utf8) + [0x90, 0x00])])
        #expect(Fixture.error { _ = try CTAPClient(transport: card) } == .ctap2NotSupported(selectAnswer: "U2F_V2"))
    }

    @Test("a transcript stand-in: a recorded session replays byte for byte")
    func transcript() throws {
        let (recorded, recorder) = try Fixture.client()
        let stand = ScriptedCardTransport(zip(recorder.sent, recorder.received).map { .exchange(command: $0, response: $1) })
        let replayed = try CTAPClient(transport: stand)
        #expect(replayed.info == recorded.info)
        #expect(stand.isFinished)
        #expect(stand.received == recorder.sent)
    }

    @Test("status words the binding does not allow surface with the word")
    func unexpectedWord() {
        let card = ScriptedCardTransport([
            .exchange(command: Self.select, response: Array("FIDO_2_0".utf8) + [0x90, 0x00]),
            .exchange(command: Self.getInfo, response: [0x6D, 0x00]),
        ])
        #expect(Fixture.error { _ = try CTAPClient(transport: card) } == .unexpectedStatusWord(0x6D00, during: "NFCCTAP_MSG"))
    }

    @Test("an answer without SW1 SW2 is malformed")
    func shortAnswer() {
        let card = ScriptedCardTransport([.exchange(command: Self.select, response: [0x90])])
        #expect(Fixture.error { _ = try CTAPClient(transport: card) }
            == .malformedResponse("an APDU answer of 1 byte(s) (90); it must end with SW1 SW2"))
    }

    @Test("a card that leaves the field mid-command: transport(cardRemoved)")
    func cardRemoved() throws {
        let (client, transport) = try Fixture.clientWithPIN()
        transport.removeAfter = transport.sent.count + 1  // the key agreement goes, the token request does not
        let error = Fixture.error { _ = try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID) }
        #expect(error == .transport(.cardRemoved("the test took the card away")))
        #expect(error?.isCardRemoved == true)
        #expect(!transport.card.front.isAppletSelected, "the card lost power")
    }

    @Test("a transcript that takes the card away: cardRemoved")
    func transcriptRemoval() {
        let card = ScriptedCardTransport([.cardRemoved])
        #expect(Fixture.error { _ = try CTAPClient(transport: card) } == .transport(.cardRemoved("the transcript takes the card away here")))
    }
}
