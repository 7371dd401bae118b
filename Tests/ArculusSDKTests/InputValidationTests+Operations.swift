import ArculusCard
import ArculusSDK
import CardTestSupport
import CTAPClient
import CardCrypto
import FIDOWire
import Foundation
import Testing

/// PINs, the samples' options, the flows' servers, and how messages name the SDK's operations.
extension InputValidationTests {
    static let pinLimit = ", so it cannot be the card's PIN; sending it would only cost one of the card's attempts"
    static let tooShort = "a PIN has at least 4 (CTAP 2.1 §6.5.1; the vendor asks apps for 6 or more digits)"

    @Test("PINs no card can have, for every operation that takes one", arguments: [
        (ArculusFidoOperation.setPin, ArculusFidoParameter.pin, "", "setPin: pin is empty"),
        (.setPin, .pin, "123", "setPin: pin has 3 characters; \(tooShort)"),
        (.setPin, .pin, "ééé", "setPin: pin has 3 characters; \(tooShort)"),
        (.setPin, .pin, String(repeating: "9", count: 64), "setPin: pin is 64 bytes of UTF-8; a PIN has at most 63"),
        (.setPin, .pin, "12\u{0}34", "setPin: pin contains a NUL character, which no PIN can"),
        (.changePin, .oldPin, "12", "changePin: oldPin has 2 characters; \(tooShort)\(pinLimit)"),
        (.changePin, .newPin, "123", "changePin: newPin has 3 characters; \(tooShort)"),
        (.registerCardOnly, .pin, "1", "registerCardOnly: pin has 1 character; \(tooShort)\(pinLimit)"),
        (.resetDevice, .pin, "12", "resetDevice: pin has 2 characters; \(tooShort)"),
        (.deleteCredentialByCredentialId, .pin, String(repeating: "7", count: 70), "deleteCredentialByCredentialId: pin is 70 bytes of UTF-8; a PIN has at most 63\(pinLimit)"),
    ])
    func pins(operation: ArculusFidoOperation, parameter: ArculusFidoParameter, pin: String, message: String) async throws {
        try await Self.expectRefused(Refusal(kind: .invalidPIN, parameter: parameter, value: nil, message: message), of: operation) { sdk in
            switch operation {
            case .setPin: try await sdk.throwing.setPin(pin: pin)
            case .changePin:
                try await sdk.throwing.changePin(oldPin: parameter == .oldPin ? pin : Fixture.pin, newPin: parameter == .newPin ? pin : "24681357")
            case .registerCardOnly: try await Self.register(sdk, pin: pin)
            case .resetDevice: try await sdk.resetDevice(pin: pin)
            default: try await sdk.deleteCredentialByCredentialId(pin: pin, credentialId: Base64URL.encode([UInt8](repeating: 1, count: 16)))
            }
        }
    }

    @Test("authenticateCardOnly(optionsResponse:): options that contradict themselves or do not fit")
    func options() async throws {
        func options(_ fill: (ArculusFidoOptionsAuthorizationResponse) -> Void) -> ArculusFidoOptionsAuthorizationResponse {
            let options = ArculusFidoOptionsAuthorizationResponse()
            options.rpId = Fixture.rpID
            fill(options)
            return options
        }
        let loopbackClientData = Base64URL.encode(Array(
            "{\"type\":\"webauthn.get\",\"challenge\":\"\(Fixture.challenge)\",\"origin\":\"http://127.0.0.1:8080\"}".utf8))
        let cases: [(ArculusFidoOptionsAuthorizationResponse, Refusal)] = [
            (options { _ in }, Refusal(kind: .invalidOptions, parameter: .optionsResponse, value: nil,
                                       message: "authenticateCardOnly: optionsResponse needs clientDataJSONbase64, or challenge and origin")),
            (options { $0.challenge = "AAAA"; $0.origin = Fixture.origin },
             Refusal(kind: .invalidChallenge, parameter: .optionsChallenge, value: "AAAA",
                     message: "authenticateCardOnly: optionsResponse.challenge \"AAAA\" is 3 bytes; WebAuthn challenges are at least 16 random bytes; pass the server's challenge as it sent it")),
            (options { $0.challenge = Fixture.challenge; $0.origin = "https://example.org" },
             Refusal(kind: .rpIDMismatch, parameter: .optionsRpId, value: "example.com",
                     message: "authenticateCardOnly: optionsResponse.rpId \"example.com\" is neither the host of optionsResponse.origin \"https://example.org\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)" + Self.anyway)),
            (options { $0.clientDataJSONbase64 = loopbackClientData },
             Refusal(kind: .rpIDMismatch, parameter: .optionsClientDataJSON, value: "http://127.0.0.1:8080",
                     message: "authenticateCardOnly: optionsResponse.clientDataJSONbase64 \"http://127.0.0.1:8080\" has an IP address for its host, and WebAuthn wants a domain there (§5.1.3), so no RP ID fits it; use http://localhost:8080" + Self.anyway)),
            (options { $0.clientDataJSONbase64 = Base64URL.encode(Array("{\"type\":\"webauthn.create\"}".utf8)) },
             Refusal(kind: .invalidOptions, parameter: .optionsClientDataJSON, value: Base64URL.encode(Array("{\"type\":\"webauthn.create\"}".utf8)),
                     message: "authenticateCardOnly: optionsResponse.clientDataJSONbase64 \"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0\" is not a clientDataJSON for an authentication: its JSON needs \"type\": \"webauthn.get\", a challenge and an origin")),
            (options { $0.challenge = Fixture.challenge; $0.origin = Fixture.origin; $0.rpIdHash = Data(SHA256.hash(Array("example.org".utf8))) },
             Refusal(kind: .invalidOptions, parameter: .optionsRpIdHash, value: nil,
                     message: "authenticateCardOnly: optionsResponse.rpIdHash is not SHA-256 of optionsResponse.rpId \"example.com\"")),
            (options { $0.challenge = Fixture.challenge; $0.origin = Fixture.origin; $0.allowList = ["AAAA"] },
             Refusal(kind: .invalidCredentialID, parameter: .optionsAllowList, value: "AAAA",
                     message: "authenticateCardOnly: optionsResponse.allowList \"AAAA\" is 3 bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)")),
        ]
        for (options, refusal) in cases {
            try await Self.expectRefused(refusal, of: .authenticateCardOnly) { sdk in
                _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice", rpId: Fixture.rpID, optionsResponse: options)
            }
        }
    }

    @Test("the flows check the caller's values before the card or any server is reached")
    func flows() async throws {
        let local = ArculusFidoServer(domain: "http://localhost:9")
        try await Self.expectRefused(Refusal(kind: .invalidServer, parameter: .fidoServer, value: "ftp://fido.example.com",
                                             message: "registerUser: fidoServer \"ftp://fido.example.com\" is not a server address; give a host name (https) or http(s)://host:port"),
                                     of: .registerUser) { sdk in
            _ = try await sdk.throwing.registerUser(fidoServer: ArculusFidoServer(domain: "ftp://fido.example.com"), pin: Fixture.pin, username: "alice",
                                           displayName: "", relyingParty: Fixture.rpID)
        }
        try await Self.expectRefused(Refusal(kind: .invalidServer, parameter: .fidoServer, value: "http://fido.example.com",
                                             message: "authenticateUser: fidoServer \"http://fido.example.com\" gives the origin \"http://fido.example.com\", which is http; WebAuthn needs a secure origin, https (http only for localhost and loopback addresses): https://fido.example.com"),
                                     of: .authenticateUser) { sdk in
            _ = try await sdk.throwing.authenticateUser(fidoServer: ArculusFidoServer(domain: "http://fido.example.com"), pin: Fixture.pin,
                                               username: "alice", displayName: "", relyingParty: Fixture.rpID)
        }
        try await Self.expectRefused(Refusal(kind: .invalidRPID, parameter: .relyingParty, value: "https://example.com",
                                             message: "registerUser: relyingParty \"https://example.com\" is a URL; give the relying party's domain, e.g. example.com"),
                                     of: .registerUser) { sdk in
            _ = try await sdk.throwing.registerUser(fidoServer: local, pin: Fixture.pin, username: "alice", displayName: "", relyingParty: "https://example.com",
                                           resetDevice: true)
        }
        try await Self.expectRefused(Refusal(kind: .invalidPIN, parameter: .pin, value: nil, message: "registerUser: pin has 3 characters; \(Self.tooShort)"),
                                     of: .registerUser) { sdk in
            _ = try await sdk.throwing.registerUser(fidoServer: local, pin: "123", username: "alice", displayName: "", relyingParty: "localhost", resetDevice: true)
        }
        try await Self.expectRefused(Refusal(kind: .invalidServer, parameter: .backend, value: "backend.example.com",
                                             message: "registerViaBackend: backend \"backend.example.com\" is not a server address; give a host name (https) or http(s)://host:port"),
                                     of: .registerViaBackend) { sdk in
            _ = try await sdk.registerViaBackend(backend: ArculusBackendClient(baseUrl: "backend.example.com"), pin: Fixture.pin,
                                                 username: "alice", displayName: "", rpId: Fixture.rpID)
        }
        try await Self.expectRefused(Refusal(kind: .invalidUser, parameter: .username, value: "",
                                             message: "authenticateViaBackend: username \"\" is empty; give the account's name, e.g. alice@example.com"),
                                     of: .authenticateViaBackend) { sdk in
            _ = try await sdk.authenticateViaBackend(backend: ArculusBackendClient(baseUrl: "http://localhost:9"), pin: Fixture.pin,
                                                     username: "", rpId: Fixture.rpID)
        }
    }

    /// Spells every name distinctly, to see which parts of a message are references.
    static let marked = ArculusFidoNaming(subject: { "<\($0.rawValue)>" }, call: { "[\($0.rawValue)]" },
                                          parameter: { parameter, operation in "{\(parameter.rawValue)@\(operation?.rawValue ?? "-")}" })

    @Test("messages name operations and parameters by reference, so another layer can spell them its own way")
    func naming() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let twice = await Fixture.error { try await sdk.throwing.setPin(pin: "654321") }
        #expect(twice?.text(Self.marked) == "<setPin>: the card already has a PIN; change it with [changePin], or erase the card with [resetDevice]")
        #expect(twice?.message == "setPin: the card already has a PIN; change it with changePin(oldPin:newPin:), or erase the card with resetDevice(pin:)")

        let mismatch = await Fixture.error { try await Self.register(sdk, rpId: "example.org") }
        #expect(mismatch?.text(Self.marked) == "<registerCardOnly>: {rpId@registerCardOnly} \"example.org\" is neither the host of {origin@registerCardOnly} \"https://example.com\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3) (with {allowRPIDMismatch@registerCardOnly} it is signed anyway, for a test that wants the mismatch)")
        #expect(mismatch?.json(Self.marked)["error"]?["parameter"]?.stringValue == "{rpId@registerCardOnly}")
        #expect(mismatch?.json(Self.marked)["error"]?["kind"]?.stringValue == "rpIDMismatch")
        #expect(mismatch?.json["error"]?["code"]?.intValue == 700)
        #expect(mismatch?.json["error"]?["name"]?.stringValue == "Invalid Input")

        let blocked = ArculusFidoError(.ctap(CTAPError(status: .pinBlocked, command: .clientPIN)), during: .changePin)
        #expect(blocked.text(Self.marked) == "<changePin>: the PIN is blocked (CTAP2_ERR_PIN_BLOCKED), no attempts left; only [resetDevice], which erases every credential on the card, makes it usable again")
        let full = ArculusFidoError(.ctap(CTAPError(status: .keyStoreFull, command: .makeCredential)), during: .registerUser)
        #expect(full.text(Self.marked) == "<registerUser>: the card has no room for another credential (CTAP2_ERR_KEY_STORE_FULL); delete one with [deleteCredentialByCredentialId]")
        let lost = ArculusFidoError(.transport(.cardRemoved("gone")), during: .registerUser)
        let rollback = ArculusFidoError(.unknown, during: .registerUser, "the server refused it; rollback failed: \(lost)")
        #expect(rollback.text(Self.marked) == "<registerUser>: the server refused it; rollback failed: 600 Tag Lost: <registerUser>: the card left the reader (gone); hold it on the reader and try again")
        #expect(rollback.message == "registerUser: the server refused it; rollback failed: 600 Tag Lost: registerUser: the card left the reader (gone); hold it on the reader and try again")
        let noPIN = ArculusFidoError(.ctap(CTAPError(status: .pinNotSet, command: .clientPIN)), during: .registerCardOnly)
        #expect(noPIN.text(Self.marked) == "<registerCardOnly>: the card has no PIN yet (CTAP2_ERR_PIN_NOT_SET); set one with [setPin] first")
    }
}
