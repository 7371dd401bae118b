import ArculusCard
import ArculusSDK
import CardCrypto
import Foundation
import Testing

/// The calls of the seed's sample apps, written as the samples write them (plus `try`, since this
/// SDK throws its errors): they compile against this SDK and behave.
@Suite("the sample apps' calls", .timeLimit(.minutes(1)))
struct SeedShapeTests {
    @Test("minimal client-direct example: server configuration, registerUser, authenticateUser")
    func clientDirect() async throws {
        let (arculusFido, connector) = try await Fixture.sdkWithPIN()
        // Port 9 (discard) on the loopback: nothing listens, so the flow stops at the server.
        let fidoServer = ArculusFidoServer(domain: "http://127.0.0.1:9")
        fidoServer.registrationBeginEndpoint = "fidoapi/certify/attestation/options"
        fidoServer.registrationCompleteEndpoint = "fidoapi/certify/attestation/result"
        fidoServer.authorizationBeginEndpoint = "fidoapi/certify/assertion/options"
        fidoServer.authorizationCompleteEndpoint = "fidoapi/certify/assertion/result"
        fidoServer.timeout = 5

        let registration = await Fixture.error {
            _ = try await arculusFido.registerUser(fidoServer: fidoServer, pin: "123456", username: "[email protected]",
                                                   displayName: "My Device", relyingParty: "example.com")
        }
        #expect(registration?.code == .unknown)
        #expect(registration?.message.hasPrefix("registerUser: registration begin: cannot reach http://127.0.0.1:9/fidoapi/certify/attestation/options: ") == true)
        #expect(connector.taps == 2, "the card was tapped before the server was asked")
        #expect(connector.card.credentials.isEmpty)

        let authentication = await Fixture.error {
            _ = try await arculusFido.authenticateUser(fidoServer: fidoServer, pin: "123456", username: "[email protected]",
                                                       displayName: "My Device", relyingParty: "example.com")
        }
        #expect(authentication?.code == .unknown)
        #expect(authentication?.message.hasPrefix("authenticateUser: authentication begin: cannot reach http://127.0.0.1:9/fidoapi/certify/assertion/options: ") == true)

        // The full sample's form, with resetDevice and registrationInfo.
        let full = await Fixture.error {
            _ = try await arculusFido.registerUser(fidoServer: fidoServer, pin: "123456", username: "user", displayName: "iOS Device",
                                                   relyingParty: "example.com", resetDevice: false, registrationInfo: "device info")
        }
        #expect(full?.code == .unknown)
        #expect(full?.message.hasPrefix("registerUser: registration begin: cannot reach http://127.0.0.1:9/fidoapi/certify/attestation/options: ") == true)
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
