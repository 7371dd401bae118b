import ArculusCard
import ArculusSDK
import CardCrypto
import CardTestSupport
import Foundation
import Testing

/// The calls of the seed's sample apps, written as the samples write them: they compile against
/// this SDK and behave. (`Tests/Seed` runs the seed's own text against a served card.)
@Suite("the sample apps' calls", .timeLimit(.minutes(1)))
struct SeedShapeTests {
    @Test("minimal client-direct example: server configuration, then registerUser and authenticateUser awaited without try, their text an alert can show")
    func clientDirect() async throws {
        let (arculusFido, connector) = try await Fixture.sdkWithPIN()
        // Port 9 (discard) on the loopback: nothing listens, so the flow stops at the server.
        let fidoServer = ArculusFidoServer(domain: "http://127.0.0.1:9")
        fidoServer.registrationBeginEndpoint = "fidoapi/certify/attestation/options"
        fidoServer.registrationCompleteEndpoint = "fidoapi/certify/attestation/result"
        fidoServer.authorizationBeginEndpoint = "fidoapi/certify/assertion/options"
        fidoServer.authorizationCompleteEndpoint = "fidoapi/certify/assertion/result"
        fidoServer.timeout = 5

        let registration = await arculusFido.registerUser(
            fidoServer: fidoServer,
            pin: "123456",
            username: "[email protected]",
            displayName: "My Device",
            relyingParty: "example.com"
        )
        #expect(registration.hasPrefix("601 Unknown: registerUser: registration begin: cannot reach http://127.0.0.1:9/fidoapi/certify/attestation/options: "),
                "\(registration)")
        #expect(connector.taps == 1, "only setPin tapped the card: the server is asked before the card, and it did not answer")
        #expect(connector.card.credentials.isEmpty)

        let authentication = await arculusFido.authenticateUser(
            fidoServer: fidoServer,
            pin: "123456",
            username: "[email protected]",
            displayName: "My Device",
            relyingParty: "example.com"
        )
        #expect(authentication.hasPrefix("601 Unknown: authenticateUser: authentication begin: cannot reach http://127.0.0.1:9/fidoapi/certify/assertion/options: "),
                "\(authentication)")

        // The full sample's form, with resetDevice and registrationInfo; the typed form throws the same.
        let full = await arculusFido.registerUser(fidoServer: fidoServer, pin: "123456", username: "user", displayName: "iOS Device",
                                                  relyingParty: "example.com", resetDevice: false, registrationInfo: "device info")
        let thrown = await Fixture.error {
            _ = try await arculusFido.throwing.registerUser(fidoServer: fidoServer, pin: "123456", username: "user", displayName: "iOS Device",
                                                            relyingParty: "example.com", resetDevice: false, registrationInfo: "device info")
        }
        #expect(thrown?.code == .unknown && thrown?.urlError?.code == .cannotConnectToHost)
        // The network library's own words end the text and name the time it took: compare the rest.
        let prefix = "601 Unknown: registerUser: registration begin: cannot reach http://127.0.0.1:9/fidoapi/certify/attestation/options: "
        #expect(full.hasPrefix(prefix) && thrown?.description.hasPrefix(prefix) == true, "\(full)")
        #expect(thrown?.localizedDescription == thrown?.description, "the alert text is the error's localizedDescription")
    }

    @Test("setPin and changePin awaited without try: PIN set, PIN changed, and a failure's text with its vendor code")
    func pinCalls() async throws {
        let arculusFido = ArculusFido(card: try CardUnderTest(), timeouts: Fixture.timeouts)
        #expect(await arculusFido.setPin(pin: "123456") == "PIN set")
        #expect(await arculusFido.changePin(oldPin: "123456", newPin: "24681357") == "PIN changed")
        #expect(await arculusFido.changePin(oldPin: "123456", newPin: "11112222")
            == "608 Get PIN Token Failed: changePin: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN")
        #expect(await arculusFido.setPin(pin: "12")
            == "700 Invalid Input: setPin: pin has 2 characters; a PIN has at least 4 (CTAP 2.1 §6.5.1; the vendor asks apps for 6 or more digits)")
    }

    @Test("backend-proxied example: registerCardOnly, then the samples' createOptionsResponseFromBackend")
    func backendProxied() async throws {
        let (arculusFido, _) = try await Fixture.sdkWithPIN()
        let challenge = Fixture.challenge
        let rpIdFromServer = "example.com"
        let origin = "https://fido.example.com"  // the sample servlet's FIDO2_SERVER_URL
        let cardResponseJson = try await arculusFido.registerCardOnly(
            pin: "123456",
            username: "[email protected]",
            displayName: "My Device",
            rpId: rpIdFromServer,
            challenge: challenge,
            origin: origin
        )
        let cardResponseData = try #require(
            try JSONSerialization.jsonObject(with: Data(cardResponseJson.utf8)) as? [String: Any])
        let credentialId = try #require(cardResponseData["id"] as? String)

        // createOptionsResponseFromBackend, as the sample writes it (SHA-256 from CardCrypto).
        let optionsResponse = ArculusFidoOptionsAuthorizationResponse()
        optionsResponse.challenge = challenge
        optionsResponse.rpId = rpIdFromServer
        optionsResponse.allowList = []
        let clientData: [String: Any] = ["type": "webauthn.get", "challenge": challenge, "origin": origin]
        let clientDataJSON = try JSONSerialization.data(withJSONObject: clientData)
        optionsResponse.clientDataJSONbase64 = clientDataJSON.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        optionsResponse.clienthash = Data(SHA256.hash([UInt8](clientDataJSON)))
        optionsResponse.rpIdHash = Data(SHA256.hash(Array(rpIdFromServer.utf8)))

        let signed = try await arculusFido.authenticateCardOnly(
            pin: "123456",
            username: "[email protected]",
            rpId: rpIdFromServer,
            optionsResponse: optionsResponse
        )
        let response = try JSONValue(parsing: signed)
        #expect(response["id"]?.stringValue == credentialId)
        #expect(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode) == [UInt8](clientDataJSON))

        // The rollback call of the sample.
        try await arculusFido.deleteCredentialByCredentialId(pin: "123456", credentialId: credentialId)
    }
}
