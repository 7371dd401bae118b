import ArculusCard
import CardTestSupport
import CTAPClient
import FIDOWire
import Testing
import TestSupport

/// A synchronous transport awaited: what a test gives the asynchronous client (the card answers
/// in the calling task).
struct Awaited: AsyncCardTransport {
    let inner: any CardTransport

    func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8] {
        try inner.transmit(apdu)
    }
}

/// The asynchronous client and its framing (FIDOWire's ``NFCHostFraming``, as the synchronous client's): the same APDUs, answers and
/// errors as the synchronous client's.
@Suite("the asynchronous client", .timeLimit(.minutes(1)))
struct AsyncClientTests {
    /// The header (CLA INS P1 P2) and length of each command, and SW1 of each answer: what two
    /// runs share whatever their random key agreements and signature lengths.
    static func shape(_ transport: VirtualCardTransport) -> [[UInt8]] {
        zip(transport.sent, transport.received).map { sent, received in Array(sent.prefix(4)) + [UInt8(truncatingIfNeeded: sent.count), received[received.count - 2]] }
    }

    @Test("every operation sends what the synchronous client sends, in the same order, and reads the same", arguments: [
        CardProfile.default, Fixture.protocolOneOnly,
    ])
    func sameAsSync(profile: CardProfile) async throws {
        let syncTransport = VirtualCardTransport(try VirtualCard(profile: profile))
        let asyncTransport = VirtualCardTransport(try VirtualCard(profile: profile))
        let sync = try CTAPClient(transport: syncTransport)
        let client = try await AsyncCTAPClient(transport: Awaited(inner: asyncTransport))
        #expect(client.info == sync.info && client.selectAnswer == sync.selectAnswer)

        try sync.setPIN(Fixture.pin)
        try await client.setPIN(Fixture.pin)
        #expect(client.info.isPINSet == true && client.info == sync.info)
        let long = String(repeating: "x", count: 64)
        var request = MakeCredentialTests.request(user: UserEntity(id: Array(repeating: 7, count: 64), name: long, displayName: long))
        request.relyingParty.name = long
        let made = try sync.makeCredential(request, token: try sync.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        let madeAsync = try await client.makeCredential(request, token: try await client.pinToken(pin: Fixture.pin, permissions: .makeCredential,
                                                                                                 rpID: Fixture.rpID))
        #expect(madeAsync.format == made.format && madeAsync.credentialID.count == made.credentialID.count)
        _ = try sync.makeCredential(MakeCredentialTests.request(user: UserEntity(id: [2], name: "bob")),
                                    token: try sync.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        _ = try await client.makeCredential(MakeCredentialTests.request(user: UserEntity(id: [2], name: "bob")),
                                            token: try await client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))

        let assertionRequest = GetAssertionRequest(rpID: Fixture.rpID, clientDataHash: MakeCredentialTests.clientDataHash)
        let signed = try sync.getAssertions(assertionRequest, token: try sync.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID))
        let signedAsync = try await client.getAssertions(assertionRequest, token: try await client.pinToken(pin: Fixture.pin, permissions: .getAssertion,
                                                                                                           rpID: Fixture.rpID))
        #expect(signedAsync.map { $0.user?.name } == signed.map { $0.user?.name } && signed.count == 2)

        let token = try sync.pinToken(pin: Fixture.pin, permissions: .credentialManagement)
        let tokenAsync = try await client.pinToken(pin: Fixture.pin, permissions: .credentialManagement)
        let stored = try sync.allCredentials(token: token)
        let storedAsync = try await client.allCredentials(token: tokenAsync)
        #expect(storedAsync.map(\.user.name) == stored.map(\.user.name) && stored.count == 2)
        #expect(try await client.relyingParties(token: tokenAsync).map(\.id) == (try sync.relyingParties(token: token)).map(\.id))
        #expect(try await client.credentials(of: RelyingPartyEntity(id: "nobody.example"), token: tokenAsync).isEmpty)
        #expect(try sync.credentials(of: RelyingPartyEntity(id: "nobody.example"), token: token).isEmpty)
        try sync.deleteCredential(id: stored[0].credential.id, token: token)
        try await client.deleteCredential(id: storedAsync[0].credential.id, token: tokenAsync)
        #expect(try await client.allCredentials(token: tokenAsync).count == 1)
        #expect(try sync.allCredentials(token: token).count == 1)

        try sync.changePIN(from: Fixture.pin, to: "24681357")
        try await client.changePIN(from: Fixture.pin, to: "24681357")
        let wrong = await Fixture.error { _ = try await client.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID) }
        #expect(wrong == Fixture.error { _ = try sync.pinToken(pin: Fixture.pin, permissions: .getAssertion, rpID: Fixture.rpID) })
        #expect(wrong?.ctapStatus == .pinInvalid)
        #expect(try await client.pinRetries().retries == (try sync.pinRetries().retries))
        _ = try await client.send(.getInfo)
        _ = try sync.send(.getInfo)

        #expect(Self.shape(asyncTransport) == Self.shape(syncTransport), "the same commands, headers, lengths and status words")
        #expect(asyncTransport.sent.contains { $0[0] == 0x90 } && asyncTransport.sent.contains { $0[1] == 0xC0 },
                "chaining and GET RESPONSE were exercised")
    }

    @Test("reset erases the card and reads getInfo again")
    func reset() async throws {
        let transport = VirtualCardTransport(try VirtualCard())
        let client = try await AsyncCTAPClient(transport: Awaited(inner: transport))
        try await client.setPIN(Fixture.pin)
        try await client.reset()
        #expect(client.info.isPINSet == false)
        #expect(try await client.refreshInfo() == client.info)
    }

    @Test("a card answering 9100 is polled with NFCCTAP_GETRESPONSE, as the synchronous channel polls it")
    func polling() async throws {
        let transport = VirtualCardTransport(try VirtualCard(frontOptions: CardFront.Options(busyFirst: true, busyPolls: 3)))
        let channel = AsyncNFCCTAPChannel(transport: Awaited(inner: transport))
        #expect(try await channel.selectFIDOApplet() == "FIDO_2_0")
        #expect(try await channel.sendCTAPMessage([0x04]).first == 0x00)
        #expect(transport.sent.filter { $0 == [0x80, 0x11, 0x00, 0x00, 0x00] }.count == 4)
    }

    static let select = hex("00A4040008A0000006472F000100")
    static let getInfo = hex("80108000010400")
    static let selected: ScriptedCardTransport.Step = .exchange(command: select, response: Array("FIDO_2_0".utf8) + [0x90, 0x00])

    @Test("the binding's errors, each as the synchronous client names it", arguments: [
        ([ScriptedCardTransport.Step.exchange(command: select, response: [0x6A, 0x82])], CTAPClientError.appletNotFound(statusWord: 0x6A82)),
        ([.exchange(command: select, response: Array("U2F_V2".utf8) + [0x90, 0x00])], .ctap2NotSupported(selectAnswer: "U2F_V2")),
        ([selected, .exchange(command: getInfo, response: [0x6D, 0x00])], .unexpectedStatusWord(0x6D00, during: "NFCCTAP_MSG")),
        ([.exchange(command: select, response: [0x90])], .malformedResponse("an APDU answer of 1 byte(s) (90); it must end with SW1 SW2")),
        ([selected, .exchange(command: getInfo, response: [0x90, 0x00])], .malformedResponse("a CTAP response without a status byte")),
        ([selected, .exchange(command: getInfo, response: [0x2E, 0x90, 0x00])], .ctap(CTAPError(status: CTAPStatus(rawValue: 0x2E), command: .getInfo))),
        ([.cardRemoved], .transport(.cardRemoved("the transcript takes the card away here"))),
    ])
    func errors(steps: [ScriptedCardTransport.Step], expected: CTAPClientError) async {
        let card = ScriptedCardTransport(steps)
        let error = await Fixture.error { _ = try await AsyncCTAPClient(transport: Awaited(inner: card)) }
        #expect(error == expected)
        #expect(error == Fixture.error { _ = try CTAPClient(transport: ScriptedCardTransport(steps)) }, "the synchronous client's error")
    }

    @Test("framing limits: a refused chained piece, endless 61xx, endless 9100, an empty message")
    func limits() async throws {
        let long = [UInt8](repeating: 0x01, count: 300)
        let refused = ScriptedCardTransport([.anyCommand(response: [0x6A, 0x80])])
        #expect(await Fixture.error { _ = try await AsyncNFCCTAPChannel(transport: Awaited(inner: refused)).sendCTAPMessage(long) }
            == .unexpectedStatusWord(0x6A80, during: "a chained NFCCTAP_MSG piece"))

        var chained = AsyncNFCCTAPChannel(transport: Awaited(inner: ScriptedCardTransport(Array(repeating: .anyCommand(response: [0x61, 0x01]), count: 4))))
        chained.maximumGetResponses = 2
        #expect(await Fixture.error { _ = try await chained.sendCTAPMessage([0x04]) }
            == .malformedResponse("the card still answered 61xx after 2 GET RESPONSEs"))

        var busy = AsyncNFCCTAPChannel(transport: Awaited(inner: ScriptedCardTransport(Array(repeating: .anyCommand(response: [0x01, 0x91, 0x00]), count: 8))))
        busy.maximumPolling = .zero
        #expect(await Fixture.error { _ = try await busy.sendCTAPMessage([0x04]) } == .stillProcessing(afterSeconds: 0))

        #expect(await Fixture.error { _ = try await AsyncNFCCTAPChannel(transport: Awaited(inner: ScriptedCardTransport([]))).sendCTAPMessage([]) }
            == .invalidArgument("an empty CTAP message"))
    }

    @Test("the exchange as a value: the steps it asks for (the one framing the async channel drives)")
    func exchangeSteps() throws {
        let clock = ContinuousClock()
        var exchange = NFCHostFraming().message([UInt8](repeating: 0x01, count: 256))
        guard case .send(let first) = exchange.next(at: clock.now) else { throw TestFailure("no first piece") }
        #expect(first.prefix(5) == [0x90, 0x10, 0x80, 0x00, 0xFF])
        exchange.receive([0x90, 0x00])
        #expect(exchange.next(at: clock.now) == .send([0x80, 0x10, 0x80, 0x00, 0x01, 0x01, 0x00]))
        exchange.receive([0x01, 0x91, 0x00])
        #expect(exchange.next(at: clock.now) == .keepalive(0x01))
        #expect(exchange.next(at: clock.now) == .pause(.milliseconds(5)))
        #expect(exchange.next(at: clock.now) == .send([0x80, 0x11, 0x00, 0x00, 0x00]))
        exchange.receive([0x01, 0x91, 0x00])
        #expect(exchange.next(at: clock.now) == .keepalive(0x01))
        #expect(exchange.next(at: clock.now) == .pause(.milliseconds(10)))
        #expect(exchange.next(at: clock.now) == .send([0x80, 0x11, 0x00, 0x00, 0x00]))
        exchange.receive([0x00, 0x61, 0x02])
        #expect(exchange.next(at: clock.now) == .send([0x00, 0xC0, 0x00, 0x00, 0x02]))
        exchange.receive([0xA0, 0x90, 0x00])
        guard case .finished(let answer) = exchange.next(at: clock.now) else { throw TestFailure("not finished") }
        #expect(answer.data == [0x00, 0xA0] && answer.statusWord == 0x9000 && answer.stop == nil)
        var command = NFCHostFraming().exchange(Self.select)
        #expect(command.next(at: clock.now) == .send(Self.select))
        command.receive([0x6A, 0x82])
        guard case .finished(let refused) = command.next(at: clock.now) else { throw TestFailure("not finished") }
        #expect(refused.data.isEmpty && refused.statusWord == 0x6A82)
    }

    @Test("cancelling the task while the card is polled ends the exchange as cancelled")
    func cancelledWhilePolling() async {
        let task = Task {
            let busy = ScriptedCardTransport(Array(repeating: .anyCommand(response: [0x01, 0x91, 0x00]), count: 64))
            return await Fixture.error { _ = try await AsyncNFCCTAPChannel(transport: Awaited(inner: busy)).sendCTAPMessage([0x04]) }
        }
        task.cancel()
        #expect(await task.value == .transport(.cancelled))
    }
}
