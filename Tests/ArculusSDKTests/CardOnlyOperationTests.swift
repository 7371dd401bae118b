import ArculusCard
import ArculusSDK
import CardTestSupport
import CBOR
import CTAPClient
import CardCrypto
import Testing
import FIDOWire

/// registerCardOnly / authenticateCardOnly / deleteCredentialByCredentialId against the
/// in-process card: the JSON the backend consumes, and what ends up on the card.
@Suite("card-only operations", .timeLimit(.minutes(1)))
struct CardOnlyOperationTests {
    static let profiles: [(String, CardProfile)] = {
        var list: [(String, CardProfile)] = [("PIN protocol 2, permission tokens", .default),
                                             ("PIN protocol 1, permission tokens", Fixture.protocolOneOnly)]
        if let fido2 = try? CardProfile.named("arculus-fido2") { list.append(("PIN protocol 1, getPinToken (FIDO 2.0)", fido2)) }
        return list
    }()

    /// The authenticator data inside a registration response's attestation object.
    static func authenticatorData(_ registration: JSONValue) throws -> ParsedAuthenticatorData {
        let objectBytes = try #require(registration["response"]?["attestationObject"]?.stringValue.flatMap(Base64URL.decode))
        let object = try #require(try CBORDecoder.decode(objectBytes).mapValue)
        #expect(object[text: "fmt"] == .text("packed"))
        return try ParsedAuthenticatorData(try #require(object[text: "authData"]?.bytesValue))
    }

    @Test("registerCardOnly: the registration response JSON and a discoverable credential on the card",
          arguments: profiles)
    func register(label: String, profile: CardProfile) async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN(profile)
        let response = try await Fixture.register(sdk)

        let id = try #require(response["id"]?.stringValue)
        #expect(response["rawId"]?.stringValue == id)
        #expect(response["type"]?.stringValue == "public-key")
        #expect(!id.contains("=") && !id.contains("+") && !id.contains("/"), "base64url without padding")
        let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        #expect(String(decoding: clientData, as: UTF8.self)
            == "{\"type\":\"webauthn.create\",\"challenge\":\"\(Fixture.challenge)\",\"origin\":\"https://example.com\",\"crossOrigin\":false}")

        let data = try Self.authenticatorData(response)
        #expect(data.userPresent && data.userVerified)
        #expect(data.rpIDHash == SHA256.hash(Array("example.com".utf8)))
        #expect(data.attestedCredential.map { Base64URL.encode($0.credentialID) } == id)

        let stored = try #require(connector.card.credentials.first)
        #expect(connector.card.credentials.count == 1)
        #expect(Base64URL.encode(stored.id) == id)
        #expect(stored.userName == "alice@example.com")
        #expect(stored.userDisplayName == "Alice")
        #expect(stored.userId == Array("alice@example.com".utf8))
    }

    @Test("registerCardOnly's JSON is WebAuthn Level 3's toJSON(): authenticatorData, publicKey, publicKeyAlgorithm, transports, each what the attestation object says")
    func levelThreeRegistration() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let response = try await Fixture.register(sdk)
        #expect(Set(response.objectValue?.keys.map { $0 } ?? [])
            == ["id", "rawId", "type", "authenticatorAttachment", "clientExtensionResults", "response"])
        #expect(response["authenticatorAttachment"] == "cross-platform")
        #expect(response["clientExtensionResults"] == .object([:]))
        let members = try #require(response["response"])
        #expect(Set(members.objectValue?.keys.map { $0 } ?? [])
            == ["clientDataJSON", "authenticatorData", "transports", "publicKey", "publicKeyAlgorithm", "attestationObject"])
        let data = try Self.authenticatorData(response)
        #expect(members["authenticatorData"]?.stringValue.flatMap(Base64URL.decode) == data.bytes)
        #expect(members["transports"] == ["nfc"])
        #expect(members["publicKeyAlgorithm"] == -7)
        let key = try #require(data.attestedCredential?.publicKey.publicKey)
        let spki = try #require(members["publicKey"]?.stringValue.flatMap(Base64URL.decode))
        #expect(try P256PublicKey(derSubjectPublicKeyInfo: spki) == key)
    }

    @Test("registerCardOnly with the server's user ID: it is the credential's user handle; a bad one is refused before the card")
    func serverUserID() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let userID: [UInt8] = (0..<16).map { UInt8($0 * 7) }
        _ = try await sdk.registerCardOnly(pin: Fixture.pin, username: "alice", displayName: "Alice", rpId: Fixture.rpID,
                                           challenge: Fixture.challenge, origin: Fixture.origin, userId: Base64URL.encode(userID))
        #expect(connector.card.credentials.map(\.userId) == [userID])
        let error = await Fixture.error {
            _ = try await sdk.registerCardOnly(pin: Fixture.pin, username: "bob", displayName: "", rpId: Fixture.rpID,
                                               challenge: Fixture.challenge, origin: Fixture.origin, userId: Base64URL.encode([UInt8](repeating: 1, count: 65)))
        }
        #expect(error == ArculusFidoError(ArculusFidoInputError(.invalidUser, .userId, of: .registerCardOnly, value: Base64URL.encode([UInt8](repeating: 1, count: 65)),
                                                                "is 65 bytes; a user handle is 1 to 64 bytes (WebAuthn §5.4.3)")))
        #expect(connector.card.credentials.count == 1)
    }

    @Test("authenticateCardOnly with a credential the card returns no user for: the JSON has no userHandle (WebAuthn L3 omits it)")
    func noUserHandle() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let credential = try connector.card.addCredential(rpId: Fixture.rpID, user: CredentialUser("alice"), discoverable: false)
        let assertion = try JSONValue(parsing: try await sdk.authenticateCardOnly(
            pin: Fixture.pin, username: "alice", rpId: Fixture.rpID, challenge: Fixture.challenge, origin: Fixture.origin,
            allowCredentials: [Base64URL.encode(credential.id)]))
        #expect(assertion["id"]?.stringValue == Base64URL.encode(credential.id))
        #expect(Set(assertion["response"]?.objectValue?.keys.map { $0 } ?? []) == ["clientDataJSON", "authenticatorData", "signature"])
    }

    @Test("long names: the request is chained, a username over 64 bytes gets a SHA-256 user handle and is cut to 64 bytes")
    func longNames() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let username = String(repeating: "u", count: 70) + "@example.com"
        let displayName = String(repeating: "D", count: 64)
        _ = try await Fixture.register(sdk, username: username, displayName: displayName)
        let stored = try #require(connector.card.credentials.first)
        #expect(stored.userId == SHA256.hash(Array(username.utf8)))
        #expect(stored.userName == String(repeating: "u", count: 64), "CTAP's 64 bytes")
        #expect(stored.userDisplayName == displayName, "64 bytes fit as they are")
        #expect(connector.sent.contains { $0.count > 5 && $0[0] == 0x90 && $0[1] == 0x10 }, "a chained NFCCTAP_MSG piece")

        // And the same user is found again by name among the card's credentials.
        let assertion = try JSONValue(parsing: try await sdk.authenticateCardOnly(
            pin: Fixture.pin, username: username, rpId: Fixture.rpID, challenge: Fixture.challenge, origin: Fixture.origin))
        #expect(assertion["response"]?["userHandle"]?.stringValue == Base64URL.encode(SHA256.hash(Array(username.utf8))))
    }

    @Test("authenticateCardOnly over an allow list: a signature that verifies with the registered key",
          arguments: profiles)
    func authenticate(label: String, profile: CardProfile) async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN(profile)
        let registration = try await Fixture.register(sdk)
        let id = try #require(registration["id"]?.stringValue)
        let key = try #require(try Self.authenticatorData(registration).attestedCredential?.publicKey.publicKey)

        let challenge = Base64URL.encode([UInt8](repeating: 0xAB, count: 32))
        let response = try JSONValue(parsing: try await sdk.authenticateCardOnly(
            pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID, challenge: challenge,
            origin: Fixture.origin, allowCredentials: [id]))
        #expect(response["id"]?.stringValue == id)
        #expect(response["rawId"]?.stringValue == id)
        #expect(response["type"]?.stringValue == "public-key")
        let inner = try #require(response["response"])
        let clientData = try #require(inner["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        #expect(String(decoding: clientData, as: UTF8.self)
            == "{\"type\":\"webauthn.get\",\"challenge\":\"\(challenge)\",\"origin\":\"https://example.com\",\"crossOrigin\":false}")
        let authData = try #require(inner["authenticatorData"]?.stringValue.flatMap(Base64URL.decode))
        let signature = try #require(inner["signature"]?.stringValue.flatMap(Base64URL.decode))
        #expect(key.isValidSignature(signature, for: authData + SHA256.hash(clientData)))
        #expect(inner["userHandle"]?.stringValue == Base64URL.encode(Array("alice@example.com".utf8)))
    }

    @Test("without an allow list the user's credential is picked by name; another name is 603")
    func byUsername() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let alice = try await Fixture.register(sdk, username: "alice", displayName: "Alice")
        let bob = try await Fixture.register(sdk, username: "bob", displayName: "Bob")
        for (name, registration) in [("alice", alice), ("bob", bob)] {
            let response = try JSONValue(parsing: try await sdk.authenticateCardOnly(
                pin: Fixture.pin, username: name, rpId: Fixture.rpID, challenge: Fixture.challenge, origin: Fixture.origin))
            #expect(response["id"] == registration["id"])
        }
        let error = await Fixture.error {
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "carol", rpId: Fixture.rpID,
                                                   challenge: Fixture.challenge, origin: Fixture.origin)
        }
        #expect(error == ArculusFidoError(.userNotFound, "authenticateCardOnly: the card has 2 credential(s) for example.com, none of them for 'carol'"))
    }

    @Test("a single credential revealing only its handle is matched by the derived handle")
    func singleCredentialHandle() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        _ = try await Fixture.register(sdk, username: "alice")
        _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice", rpId: Fixture.rpID,
                                               challenge: Fixture.challenge, origin: Fixture.origin)
        let error = await Fixture.error {
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "mallory", rpId: Fixture.rpID,
                                                   challenge: Fixture.challenge, origin: Fixture.origin)
        }
        #expect(error == ArculusFidoError(.userNotFound, "authenticateCardOnly: the card has 1 credential(s) for example.com, none of them for 'mallory'"))
    }

    @Test("authenticateCardOnly(optionsResponse:) signs the ready clientDataJSON of the samples' helper")
    func optionsResponse() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let registration = try await Fixture.register(sdk)
        let id = try #require(registration["id"]?.stringValue)
        // What createOptionsResponseFromBackend builds: no crossOrigin, keys in its own order.
        let clientData = Array("{\"challenge\":\"\(Fixture.challenge)\",\"origin\":\"https://example.com\",\"type\":\"webauthn.get\"}".utf8)
        let options = ArculusFidoOptionsAuthorizationResponse()
        options.challenge = Fixture.challenge
        options.rpId = Fixture.rpID
        options.allowList = [id]
        options.clientDataJSONbase64 = Base64URL.encode(clientData)
        options.clienthash = .init(SHA256.hash(clientData))
        options.rpIdHash = .init(SHA256.hash(Array(Fixture.rpID.utf8)))
        let response = try JSONValue(parsing: try await sdk.authenticateCardOnly(
            pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID, optionsResponse: options))
        #expect(response["response"]?["clientDataJSON"]?.stringValue == Base64URL.encode(clientData))

        options.clienthash = .init([UInt8](repeating: 0, count: 32))
        let error = await Fixture.error {
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID,
                                                   optionsResponse: options)
        }
        #expect(error == ArculusFidoError(ArculusFidoInputError(.invalidOptions, .optionsClientHash, of: .authenticateCardOnly, value: nil,
                                                                "is not SHA-256 of its clientDataJSON")))
        #expect(error?.message == "authenticateCardOnly: optionsResponse.clienthash is not SHA-256 of its clientDataJSON")

        let built = ArculusFidoOptionsAuthorizationResponse()
        built.challenge = Fixture.challenge
        built.origin = "https://fido.example.com"
        let fromParts = try JSONValue(parsing: try await sdk.authenticateCardOnly(
            pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID, optionsResponse: built))
        #expect(fromParts["id"]?.stringValue == id)
    }

    @Test("deleteCredentialByCredentialId removes it; authenticating with it is 602; deleting it again is 602")
    func delete() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let registration = try await Fixture.register(sdk)
        let id = try #require(registration["id"]?.stringValue)
        try await sdk.deleteCredentialByCredentialId(pin: Fixture.pin, credentialId: id)
        #expect(connector.card.credentials.isEmpty)
        #expect(try await sdk.listCredentials(pin: Fixture.pin).isEmpty)

        let error = await Fixture.error {
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice@example.com", rpId: Fixture.rpID,
                                                   challenge: Fixture.challenge, origin: Fixture.origin, allowCredentials: [id])
        }
        #expect(error == ArculusFidoError(.noCredentials,
                                          "authenticateCardOnly: the card holds no matching credential (CTAP2_ERR_NO_CREDENTIALS); it was deleted, or registered on another card or for another relying party",
                                          ctapStatus: .noCredentials))
        let again = await Fixture.error { try await sdk.deleteCredentialByCredentialId(pin: Fixture.pin, credentialId: id) }
        #expect(again == ArculusFidoError(.noCredentials,
                                          "deleteCredentialByCredentialId: the card holds no matching credential (CTAP2_ERR_NO_CREDENTIALS); it was deleted, or registered on another card or for another relying party",
                                          ctapStatus: .noCredentials))
    }

    @Test("listCredentials shows every discoverable credential, or one RP's")
    func list() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        _ = try await Fixture.register(sdk, username: "alice")
        _ = try await Fixture.register(sdk, username: "bob", rpID: "other.example")
        let all = try await sdk.listCredentials(pin: Fixture.pin)
        #expect(Set(all.map(\.rpId)) == ["example.com", "other.example"])
        let one = try await sdk.listCredentials(pin: Fixture.pin, rpId: "other.example")
        #expect(one.map(\.username) == ["bob"])
        #expect(one.first?.userHandle == Base64URL.encode(Array("bob".utf8)))
    }

    @Test("a full card: 606 Keystore Full")
    func keystoreFull() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN(Fixture.capacityOne)
        _ = try await Fixture.register(sdk, username: "alice")
        let error = await Fixture.error { _ = try await Fixture.register(sdk, username: "bob") }
        #expect(error == ArculusFidoError(.keystoreFull,
                                          "registerCardOnly: the card has no room for another credential (CTAP2_ERR_KEY_STORE_FULL); delete one with deleteCredentialByCredentialId(pin:credentialId:)",
                                          ctapStatus: .keyStoreFull))
    }
}
