import ArculusCard
import ArculusSDK
import CardTestSupport
import CTAPClient
import Testing

/// setPin, changePin, resetDevice and the PIN errors (608) with their messages.
@Suite("PIN and reset", .timeLimit(.minutes(1)))
struct PINAndResetTests {
    @Test("setPin on a blank card; a second setPin is refused with advice")
    func setPin() async throws {
        let connector = try CardUnderTest()
        let sdk = ArculusFido(card: connector)
        let blank = try await sdk.cardInfo()
        #expect(blank.pinRetries == nil && blank.pinRetriesRefusal == .pinNotSet && blank.info.isPINSet == false,
                "what the card answers to getPINRetries before a PIN is set")
        #expect(await sdk.setPin(pin: Fixture.pin) == "PIN set")
        #expect(connector.card.pinState.isSet)
        let set = try await sdk.cardInfo()
        #expect(set.pinRetries == 8 && set.pinRetriesRefusal == nil)
        let error = await Fixture.error { try await sdk.throwing.setPin(pin: "654321") }
        #expect(error == ArculusFidoError(.unknown, "setPin: the card already has a PIN; change it with changePin(oldPin:newPin:), or erase the card with resetDevice(pin:)"))
    }

    @Test("a PIN shorter than the card's own minimum (getInfo minPINLength 6) is refused after getInfo, before any PIN command")
    func shortPINForThisCard() async throws {
        var profile = CardProfile.default
        profile.name = "fido21-min-pin-6"
        profile.minPINLength = 6
        let connector = try CardUnderTest(profile: profile)
        let sdk = ArculusFido(card: connector)
        let error = await Fixture.error { try await sdk.throwing.setPin(pin: "12345") }
        #expect(error == ArculusFidoError(ArculusFidoInputError(
            .invalidPIN, .pin, of: .setPin, value: nil, "has 5 characters; this card's PIN policy wants at least 6 (getInfo minPINLength)")))
        #expect(error?.message == "setPin: pin has 5 characters; this card's PIN policy wants at least 6 (getInfo minPINLength)")
        #expect(!connector.card.pinState.isSet)
        #expect(connector.sent.allSatisfy { $0.count < 6 || $0[5] != 0x06 }, "no clientPIN command was sent")
        try await sdk.throwing.setPin(pin: "123456")
        #expect(connector.card.pinState.isSet)
    }

    @Test("changePin; the old PIN is then wrong: 608 with the attempts left")
    func changePin() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        #expect(await sdk.changePin(oldPin: Fixture.pin, newPin: "24681357") == "PIN changed")
        let error = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(error == ArculusFidoError(.getPINTokenFailed,
                                          "registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN",
                                          ctapStatus: .pinInvalid, pinRetries: 7))
        let wrongOld = await Fixture.error { try await sdk.throwing.changePin(oldPin: Fixture.pin, newPin: "11112222") }
        #expect(wrongOld == ArculusFidoError(.getPINTokenFailed,
                                             "changePin: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 6 attempts left before the card blocks its PIN",
                                             ctapStatus: .pinInvalid, pinRetries: 6))
    }

    @Test("a card left on the reader: the third wrong PIN in a row is PIN_AUTH_BLOCKED (608, tap again)")
    func authBlocked() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        connector.powerCycleOnTap = false
        func wrong() async -> ArculusFidoError? {
            await Fixture.error {
                _ = try await sdk.registerCardOnly(pin: "000000", username: "alice", displayName: "", rpId: Fixture.rpID,
                                                   challenge: Fixture.challenge, origin: Fixture.origin)
            }
        }
        #expect(await wrong()?.pinRetries == 7)
        #expect(await wrong()?.pinRetries == 6)
        #expect(await wrong() == ArculusFidoError(.getPINTokenFailed,
                                                  "registerCardOnly: three wrong PINs in a row (CTAP2_ERR_PIN_AUTH_BLOCKED); take the card off the reader and tap it again before the next try; 5 attempts left before the card blocks its PIN",
                                                  ctapStatus: .pinAuthBlocked, pinRetries: 5))
        connector.powerCycleOnTap = true
        _ = try await Fixture.register(sdk)
    }

    @Test("eight wrong PINs: blocked (608); only resetDevice helps")
    func blocked() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        var last: ArculusFidoError?
        for _ in 0..<8 {
            last = await Fixture.error { try await sdk.throwing.changePin(oldPin: "000000", newPin: "11112222") }
        }
        #expect(last == ArculusFidoError(.getPINTokenFailed,
                                         "changePin: the PIN is blocked (CTAP2_ERR_PIN_BLOCKED), no attempts left; only resetDevice(pin:), which erases every credential on the card, makes it usable again",
                                         ctapStatus: .pinBlocked, pinRetries: 0))
        let right = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(right == ArculusFidoError(.getPINTokenFailed,
                                          "registerCardOnly: the PIN is blocked (CTAP2_ERR_PIN_BLOCKED), no attempts left; only resetDevice(pin:), which erases every credential on the card, makes it usable again",
                                          ctapStatus: .pinBlocked, pinRetries: 0))
        #expect(connector.card.pinState.retries == 0)
        try await sdk.resetDevice(pin: "13572468")
        #expect(connector.card.pinState.isSet)
        #expect(connector.card.pinState.retries == 8)
        _ = try await sdk.registerCardOnly(pin: "13572468", username: "alice", displayName: "", rpId: Fixture.rpID,
                                           challenge: Fixture.challenge, origin: Fixture.origin)
    }

    @Test("no PIN yet: 608 telling to set one")
    func noPIN() async throws {
        let sdk = ArculusFido(card: try CardUnderTest())
        let error = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(error == ArculusFidoError(.getPINTokenFailed, "registerCardOnly: the card has no PIN yet; set one with setPin(pin:) first",
                                          ctapStatus: .pinNotSet))
    }

    @Test("resetDevice erases credentials and sets the new PIN")
    func reset() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        _ = try await Fixture.register(sdk)
        #expect(try await sdk.resetDevice(pin: "99887766") == "card reset, PIN set")
        #expect(connector.card.credentials.isEmpty)
        #expect(connector.card.pinState.isSet)
        let old = await Fixture.error { _ = try await Fixture.register(sdk) }
        #expect(old == ArculusFidoError(.getPINTokenFailed,
                                        "registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN",
                                        ctapStatus: .pinInvalid, pinRetries: 7))
    }

    @Test("resetDevice long after the tap: 605 Device Reset Failed")
    func resetLate() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        connector.powerCycleOnTap = false
        let start = connector.card.clock()
        connector.card.clock = { start.advanced(by: .seconds(60)) }
        let error = await Fixture.error { try await sdk.resetDevice(pin: "99887766") }
        #expect(error == ArculusFidoError(.deviceResetFailed,
                                          "resetDevice: the card allows a reset only within seconds of being tapped (CTAP2_ERR_NOT_ALLOWED); take it off the reader, tap it again and reset at once",
                                          ctapStatus: .notAllowed))
        #expect(connector.card.pinState.isSet, "nothing was erased")
    }
}
