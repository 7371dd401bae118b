import ArculusCard
import ArculusFidoConnectors
import ArculusSDK
import CardTestSupport
import CTAPClient
import Foundation
import PCSC
import Testing
import TestSupport

/// The SDK's PC/SC connectors against an emulated card on a vpcd reader, through the real
/// pcscd (``ServedOnVPCD``): a named reader, the first FIDO card on any reader (what
/// `ArculusFido()` finds by itself), an empty reader with and without waiting, a card taken away
/// from an open connection, an unknown reader.
@Suite("PC/SC connectors through pcscd", .serialized, .timeLimit(.minutes(2)),
       .enabled(if: ServedOnVPCD.vpcd.shouldRun, Comment(rawValue: ServedOnVPCD.vpcd.unavailable)))
struct PCSCConnectorTests {
    static let reader = ServedOnVPCD.reader

    @Test("a named reader: set a PIN, register, sign, list and read the card through pcscd")
    func namedReader() async throws {
        let served = try ServedOnVPCD(try VirtualCard())
        defer { served.stop() }
        let sdk = ArculusFido(card: PCSCCardConnector(reader: Self.reader), timeouts: Fixture.timeouts)
        #expect(try await sdk.cardInfo().pinRetriesRefusal == .pinNotSet)
        try await sdk.throwing.setPin(pin: Fixture.pin)
        let registered = try await Fixture.register(sdk)
        let signed = try JSONValue(parsing: try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID,
                                                                                challenge: Fixture.challenge, origin: Fixture.origin))
        #expect(signed["id"] == registered["id"])
        #expect(try await sdk.listCredentials(pin: Fixture.pin).map(\.credentialId) == [registered["id"]?.stringValue])
        #expect(try await sdk.cardInfo().pinRetries == 8)
        served.stop()
        #expect(served.card.credentials.count == 1 && served.card.pinState.isSet)
        #expect(served.commands.filter { $0 == Array(NFCBinding.selectFIDOApplet) }.count == 6, "one SELECT per tap: six operations")
    }

    @Test("no reader named: the first reader whose card answers the FIDO SELECT")
    func firstFIDOReader() async throws {
        let served = try ServedOnVPCD(try VirtualCard())
        defer { served.stop() }
        let sdk = ArculusFido(card: FirstFIDOReaderConnector(), timeouts: Fixture.timeouts)
        try await sdk.throwing.setPin(pin: Fixture.pin)
        served.stop()
        #expect(served.card.pinState.isSet, "the card on \(Self.reader) got the PIN")
    }

    @Test("an empty reader: no card on the reader at once without waiting, or after the tap time-out; a card put on it in time is used")
    func emptyReader() async throws {
        let served = try ServedOnVPCD(try VirtualCard())
        defer { served.stop() }
        try served.takeAway()
        let now = ArculusFido(card: PCSCCardConnector(reader: Self.reader, waitsForCard: false), timeouts: Fixture.timeouts)
        #expect(await Fixture.error { _ = try await now.cardInfo() }
            == ArculusFidoError(.tagLost, "cardInfo: no card on the reader (SCARD_E_NO_SMARTCARD on '\(Self.reader)'); put the card on the reader and try again"))
        let waiting = ArculusFido(card: PCSCCardConnector(reader: Self.reader), timeouts: CardTimeouts(tap: .seconds(1), answer: .seconds(5)))
        #expect(await Fixture.error { _ = try await waiting.cardInfo() }
            == ArculusFidoError(.tagLost, "cardInfo: no card on the reader (none was presented within 1 s); put the card on the reader and try again"))
        let first = ArculusFido(card: FirstFIDOReaderConnector(), timeouts: CardTimeouts(tap: .seconds(1), answer: .seconds(5)))
        let nothing = await Fixture.error { _ = try await first.cardInfo() }
        #expect(nothing == nil || nothing?.code == .tagLost, "another suite's card may be on another reader; none here")

        let patient = ArculusFido(card: PCSCCardConnector(reader: Self.reader), timeouts: CardTimeouts(tap: .seconds(20), answer: .seconds(5)))
        let putBack = Task.detached {
            try await Task.sleep(for: .milliseconds(500))
            try served.putBack()
        }
        #expect(try await patient.cardInfo().info.versions.contains("FIDO_2_1"), "the card put on the reader while the tap waited")
        try await putBack.value
    }

    @Test("an open connection whose card leaves: the card was removed; a power cycle reaches it again")
    func removedAndPowerCycled() async throws {
        let served = try ServedOnVPCD(try VirtualCard())
        defer { served.stop() }
        let connection = try await PCSCCardConnector(reader: Self.reader).connect()
        #expect(try await connection.transmit(NFCBinding.selectFIDOApplet).suffix(2) == [0x90, 0x00])
        try await connection.powerCycle()
        #expect(try await connection.transmit(NFCBinding.selectFIDOApplet).suffix(2) == [0x90, 0x00], "answered after the power cycle")
        try served.takeAway()
        var removed: CardTransportError?
        do {
            _ = try await connection.transmit(NFCBinding.selectFIDOApplet)
        } catch {
            removed = error
        }
        #expect(removed == .cardRemoved("SCARD_W_REMOVED_CARD on '\(Self.reader)'") || removed == .cardRemoved("SCARD_E_NO_SMARTCARD on '\(Self.reader)'"),
                "\(String(describing: removed))")
        await connection.close()
        try served.putBack()
    }

    @Test("an unknown reader: 607 naming the readers pcscd has")
    func unknownReader() async throws {
        let sdk = ArculusFido(card: PCSCCardConnector(reader: "No Such Reader 99", waitsForCard: false), timeouts: Fixture.timeouts)
        let error = await Fixture.error { _ = try await sdk.cardInfo() }
        #expect(error?.code == .transmitFailed)
        #expect(error?.message.hasPrefix("cardInfo: the card cannot be reached: the APDU exchange failed: pcscd has no reader 'No Such Reader 99'; it has '") == true,
                "\(String(describing: error))")
        #expect(error?.message.contains(Self.reader) == true)
    }
}

/// PC/SC failures in the SDK's terms, and the in-process card's transports (no pcscd needed).
@Suite("connector pieces")
struct ConnectorPieceTests {
    @Test("PC/SC codes: a card gone is 600's cardRemoved, the others say what to do", arguments: [
        (PCSCError.Code.removedCard, CardTransportError.cardRemoved("SCARD_W_REMOVED_CARD on 'R'")),
        (.noSmartcard, .cardRemoved("SCARD_E_NO_SMARTCARD on 'R'")),
        (.resetCard, .cardRemoved("SCARD_W_RESET_CARD on 'R'")),
        (.noService, .failed("pcscd is not running (SCARD_E_NO_SERVICE); start it (e.g. 'pcscd') and retry")),
        (.serviceStopped, .failed("pcscd is not running (SCARD_E_SERVICE_STOPPED); start it (e.g. 'pcscd') and retry")),
        (.sharingViolation, .failed("another application holds the card on 'R' exclusively (SCARD_E_SHARING_VIOLATION); close it and retry")),
    ])
    func transportErrors(code: PCSCError.Code, expected: CardTransportError) {
        #expect(PCSCCardTransport.transportError(PCSCError(function: "SCardTransmit", code: code), reader: "R") == expected)
    }

    @Test("another PC/SC failure keeps pcsc-lite's words")
    func otherFailure() {
        let error = PCSCError(function: "SCardTransmit", code: .communicationError)
        #expect(PCSCCardTransport.transportError(error, reader: "R") == .failed("\(error)"))
    }

    @Test("the probe's in-process transport: each APDU to the card, and a power cycle")
    func virtualCardTransport() throws {
        let card = try VirtualCard()
        let transport = VirtualCardTransport(card: card)
        #expect(try transport.transmit(NFCBinding.selectFIDOApplet).suffix(2) == [0x90, 0x00])
        #expect(card.front.isAppletSelected)
        try transport.powerCycle()
        #expect(!card.front.isAppletSelected, "a power cycle clears the selection")
    }

    @Test("the in-process connector: taps power the card afresh unless told not to; a card taken away stays away until put back")
    func virtualCardConnector() async throws {
        let connector = VirtualCardConnector(card: try VirtualCard())
        #expect(connector.powerCycleOnTap && connector.taps == 0 && connector.leavesFieldAfter == nil)
        let connection = try await connector.connect()
        #expect(try await connection.transmit(NFCBinding.selectFIDOApplet).suffix(2) == [0x90, 0x00])
        try await connection.powerCycle()
        #expect(connector.exchanged == 1 && connector.taps == 1)
        connector.powerCycleOnTap = false
        #expect(!connector.powerCycleOnTap)
        connector.leavesFieldAfter = 0
        #expect(connector.leavesFieldAfter == 0)
        var error: CardTransportError?
        do { _ = try await connection.transmit(NFCBinding.selectFIDOApplet) } catch let failure { error = failure }
        #expect(error == .cardRemoved("the card left the field"))
        do { _ = try await connector.connect() } catch let failure { error = failure }
        #expect(error == .cardRemoved("no card in the field"))
        connector.putBack()
        let again = try await connector.connect()
        #expect(try await again.transmit(NFCBinding.selectFIDOApplet).suffix(2) == [0x90, 0x00])
        await again.close()
    }
}
