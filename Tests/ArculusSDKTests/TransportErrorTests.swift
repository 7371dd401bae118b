import ArculusCard
import ArculusSDK
import CardTestSupport
import CTAPClient
import Testing
import FIDOWire

/// The card leaving the field (600), a broken reader (607), and the error mapping table.
@Suite("transport errors and the error mapping", .timeLimit(.minutes(1)))
struct TransportErrorTests {
    @Test("the card taken away mid-registration: 600 Tag Lost, nothing registered")
    func tagLost() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        // SELECT, getInfo, getKeyAgreement answered; the token request is not.
        connector.removeAfter = connector.exchanged + 3
        let error = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(error == ArculusFidoError(.tagLost, "registerCardOnly: the card left the reader (the card left the field); hold it on the reader and try again"))
        connector.putBack()
        #expect(connector.card.credentials.isEmpty)
        #expect(connector.card.pinState.retries == 8)
    }

    @Test("taken away after every number of APDUs of a registration: always 600, never anything else")
    func tagLostAnywhere() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let start = connector.exchanged
        _ = try await Fixture.register(sdk)
        let total = connector.exchanged - start
        for cut in 0..<total {
            let (fresh, freshConnector) = try await Fixture.sdkWithPIN()
            freshConnector.removeAfter = freshConnector.exchanged + cut
            let error = await Fixture.error { _ = try await Fixture.register(fresh) }
            #expect(error == ArculusFidoError(.tagLost, "registerCardOnly: the card left the reader (the card left the field); hold it on the reader and try again"),
                    "cut after \(cut) APDUs")
        }
    }

    @Test("no card in the field at all: 600")
    func noCard() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        connector.removeAfter = connector.exchanged
        #expect(await Fixture.error { _ = try await sdk.cardInfo() }
            == ArculusFidoError(.tagLost, "cardInfo: the card left the reader (the card left the field); hold it on the reader and try again"))
        let error = await Fixture.error { try await sdk.throwing.setPin(pin: Fixture.pin) }
        #expect(error == ArculusFidoError(.tagLost, "setPin: no card on the reader (no card in the field); put the card on the reader and try again"),
                "a card that is not there when the tap begins did not leave")
    }

    @Test("a reader failure that is not a removal: 607 Transmit Failed")
    func transmitFailed() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        connector.failure = .failed("SCardTransmit failed: SCARD_F_COMM_ERROR")
        let error = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(error == ArculusFidoError(.transmitFailed, "registerCardOnly: the card cannot be reached: the APDU exchange failed: SCardTransmit failed: SCARD_F_COMM_ERROR"))
    }

    @Test("CTAP statuses map to the vendor codes", arguments: [
        (CTAPStatus.noCredentials, ArculusFidoErrorCode.noCredentials),
        (.keyStoreFull, .keystoreFull),
        (.pinInvalid, .getPINTokenFailed),
        (.pinBlocked, .getPINTokenFailed),
        (.pinAuthBlocked, .getPINTokenFailed),
        (.pinNotSet, .getPINTokenFailed),
        (.unauthorizedPermission, .getPINTokenFailed),
        (.pinAuthInvalid, .pinVerificationFailed),
        (.invalidParameter, .unknown),
        (.operationDenied, .unknown),
        (CTAPStatus(rawValue: 0xEE), .unknown),
    ])
    func mapping(status: CTAPStatus, code: ArculusFidoErrorCode) {
        let error = ArculusFidoError(.ctap(CTAPError(status: status, command: .makeCredential)), during: .registerCardOnly)
        #expect(error.code == code)
        #expect(error.ctapStatus == status)
        #expect(error.message.hasPrefix("registerCardOnly: "))
        #expect(error.message.contains(status.name))
    }

    @Test("reset refusals are 605, key agreement refusals 609, garbled answers 607")
    func contextualMapping() {
        for status in [CTAPStatus.notAllowed, .operationDenied, .userActionTimeout, .invalidCommand] {
            let error = ArculusFidoError(.ctap(CTAPError(status: status, command: .reset)), during: .resetDevice)
            #expect(error.code == .deviceResetFailed)
            #expect(error.ctapStatus == status)
            #expect(error.message.hasPrefix("resetDevice: ") && error.message.contains(status.name))
        }
        let keyAgreement = ArculusFidoError(.ctap(CTAPError(status: .invalidParameter, command: .clientPIN, subcommand: "getKeyAgreement")),
                                            during: .setPin)
        #expect(keyAgreement == ArculusFidoError(.pinVerificationFailed,
                                                 "setPin: the card did not give its key agreement key (CTAP1_ERR_INVALID_PARAMETER), so the PIN cannot be sent",
                                                 ctapStatus: .invalidParameter))
        #expect(ArculusFidoError(.unexpectedStatusWord(0x6F00, during: "NFCCTAP_MSG"), during: .setPin)
            == ArculusFidoError(.transmitFailed, "setPin: the card answered 6F00 during NFCCTAP_MSG"))
        #expect(ArculusFidoError(.malformedResponse("x"), during: .setPin)
            == ArculusFidoError(.transmitFailed, "setPin: the card's answer is malformed: x"))
        #expect(ArculusFidoError(.appletNotFound(statusWord: 0x6A82), during: .setPin)
            == ArculusFidoError(.unknown, "setPin: the card has no FIDO applet (SELECT A0000006472F0001 answered 6A82); this is not a FIDO2 card"))
    }

    @Test("the error as JSON: code, name, message, CTAP status, retries")
    func json() {
        let error = ArculusFidoError(.getPINTokenFailed, "registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN",
                                     ctapStatus: .pinInvalid, pinRetries: 7)
        #expect(error.json.text == """
            {"error":{"code":608,"ctapStatus":"CTAP2_ERR_PIN_INVALID","ctapStatusCode":49,"message":"registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN","name":"Get PIN Token Failed","pinRetries":7}}
            """)
        #expect(error.description.hasPrefix("608 Get PIN Token Failed: registerCardOnly: "))
        #expect(ArculusFidoErrorCode.allCases.map(\.rawValue) == Array(600...609) + [700, 701, 702], "the vendor's codes and this SDK's own")
        #expect(ArculusFidoErrorCode.relyingPartyMismatch.description == "702 Relying Party Mismatch")
    }
}
