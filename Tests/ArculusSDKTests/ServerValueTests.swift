import ArculusSDK
import CardTestSupport
import CTAPClient
import Foundation
import Testing

/// What a backend sends that the SDK refuses, each with its exact message, before the card is
/// touched (the card-only values a server names are checked by the rules of the caller's), and
/// the backend client's own API.
@Suite("a backend's values", .timeLimit(.minutes(1)))
struct ServerValueTests {
    static let challenge = Fixture.challenge
    static let origin = "https://bank.example"

    /// A phase 1 answer with `server` as fidoServerResponse.
    static func phaseOne(_ server: JSONValue, origin: String = origin) -> TestHTTPServer.Reply {
        .json(200, ["status": "success", "fidoServerResponse": server, "fido2ServerOrigin": .string(origin), "cookies": "S=1"])
    }

    static let source = "the backend's fidoServerResponse"

    @Test("phase 1 answers the SDK refuses: 601 (603 for an unknown user signing in), naming the backend's value; the card not tapped", arguments: [
        (true, TestHTTPServer.Reply.json(500, ["status": "failed", "error": "Registration begin failed"]),
         ArculusFidoError(.unknown, "registerViaBackend: the backend could not start: HTTP 500: Registration begin failed", httpStatus: 500)),
        (false, .json(404, ["status": "failed", "message": "no such user"]),
         ArculusFidoError(.userNotFound, "authenticateViaBackend: the backend could not start: HTTP 404: no such user", httpStatus: 404)),
        (true, .json(200, [:]), ArculusFidoError(.unknown, "registerViaBackend: the backend could not start: status missing", httpStatus: 200)),
        (true, .json(200, ["status": "success"]), ArculusFidoError(.unknown, "registerViaBackend: the backend's answer has no fidoServerResponse")),
        (true, .json(200, ["status": "success", "fidoServerResponse": ["challenge": .string(challenge)]]),
         ArculusFidoError(.unknown, "registerViaBackend: the backend's answer has no fido2ServerOrigin (the origin for clientDataJSON)")),
        (true, phaseOne(["challenge": .string(challenge)], origin: "https://bank.example/"),
         ArculusFidoError(.unknown, "registerViaBackend: the backend's phase 1 answer: fido2ServerOrigin \"https://bank.example/\" ends in '/'; an origin ends after the host and port: https://bank.example")),
        (true, phaseOne(["rp": ["id": "bank.example"]]), ArculusFidoError(.unknown, "registerViaBackend: \(source): no challenge to sign")),
        (true, phaseOne(["challenge": "AAAA", "rp": ["id": "bank.example"]]),
         ArculusFidoError(.unknown, "registerViaBackend: \(source): challenge \"AAAA\" is 3 bytes; WebAuthn challenges are at least 16")),
        (true, phaseOne(["challenge": .string(challenge), "rp": ["id": "other.example"]]),
         ArculusFidoError(.unknown, "registerViaBackend: \(source): the RP ID \"other.example\" is neither the host of fido2ServerOrigin \"https://bank.example\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3) (with allowRPIDMismatch it is signed anyway, for a test that wants the mismatch)")),
        (true, phaseOne(["challenge": .string(challenge), "rp": ["id": "bank.example"]], origin: "https://127.0.0.1"),
         ArculusFidoError(.unknown, "registerViaBackend: \(source): fido2ServerOrigin \"https://127.0.0.1\" has an IP address for its host, and WebAuthn wants a domain there (§5.1.3), so no RP ID fits it; use http://localhost (with allowRPIDMismatch it is signed anyway, for a test that wants the mismatch)")),
        (true, phaseOne(["challenge": .string(challenge), "rp": ["id": "bank.example"], "user": ["id": "not base64!"]]),
         ArculusFidoError(.unknown, "registerViaBackend: \(source): user.id \"not base64!\" contains whitespace, which base64url has not")),
        (true, phaseOne(["challenge": .string(challenge), "rp": ["id": "bank.example"], "attestation": 5]),
         ArculusFidoError(.unknown, "registerViaBackend: \(source): attestation is 5, not a string")),
        (false, phaseOne(["challenge": .string(challenge), "rpId": "bank.example", "allowCredentials": [["type": "public-key"]]]),
         ArculusFidoError(.unknown, "authenticateViaBackend: \(source): allowCredentials has an entry without an id: {\"type\":\"public-key\"}")),
        (false, phaseOne(["challenge": .string(challenge), "rpId": "bank.example", "allowCredentials": [["id": "AAAA"]]]),
         ArculusFidoError(.unknown, "authenticateViaBackend: \(source): a credential ID in allowCredentials \"AAAA\" is 3 bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)")),
        (true, .text(200, "hello"), ArculusFidoError(.unknown, "registerViaBackend: registration begin at the backend: the backend answered HTTP 200 without JSON: hello", httpStatus: 200)),
        (false, .text(502, " "), ArculusFidoError(.unknown, "authenticateViaBackend: authentication begin at the backend: the backend answered HTTP 502 with an empty body", httpStatus: 502)),
    ])
    func refused(registering: Bool, reply: TestHTTPServer.Reply, expected: ArculusFidoError) async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let backend = try TestHTTPServer { _ in reply }
        let client = ArculusBackendClient(baseUrl: backend.url, timeout: 5)
        let taps = connector.taps
        let error = await Fixture.error {
            if registering {
                _ = try await sdk.registerViaBackend(backend: client, pin: Fixture.pin, username: "alice", displayName: "Alice", rpId: nil)
            } else {
                _ = try await sdk.authenticateViaBackend(backend: client, pin: Fixture.pin, username: "alice", rpId: nil)
            }
        }
        #expect(error == expected)
        #expect(connector.taps == taps, "the card was not tapped")
    }

    @Test("a refused phase 3 of an authentication: 601 with the backend's reason")
    func refusedAuthentication() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let backend = try StandInBackend()
        _ = try await sdk.registerViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", displayName: "Alice", rpId: nil)
        backend.settings { $0.phaseThree = .json(400, ["status": "failed", "errorMessage": "signature counter went back"]) }
        let error = await Fixture.error {
            _ = try await sdk.authenticateViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", rpId: nil)
        }
        #expect(error == ArculusFidoError(.unknown, "authenticateViaBackend: the backend refused the authentication: HTTP 400: signature counter went back",
                                          httpStatus: 400))
    }

    @Test("the backend client on its own: its four phases, the cookies of phase 1 kept for phase 3 and forgotten on request")
    func backendClient() async throws {
        let backend = try TestHTTPServer { request in
            request.body["cardResponseData"] == nil
                ? .json(200, ["status": "success", "cookies": "FIDOSESSION=42", "echo": request.body])
                : .json(200, ["status": "success", "cookie": .string(request.header("Cookie") ?? "")])
        }
        let client = ArculusBackendClient(baseUrl: backend.url + "/", registerPath: "reg", authenticatePath: "/auth")
        #expect(client.baseUrl == backend.url && client.timeout == 30 && client.cookies == nil)
        let begin = try await client.registerBegin(username: "alice", displayName: "Alice", rpId: "bank.example")
        #expect(begin["echo"] == ["operation": "register", "username": "alice", "displayName": "Alice", "rpId": "bank.example"])
        #expect(begin["httpStatus"] == 200 && client.cookies == "FIDOSESSION=42")
        let complete = try await client.registerComplete(username: "alice", cardResponseData: ["id": "x"])
        #expect(complete["cookie"] == "FIDOSESSION=42", "phase 3 sends phase 1's cookies as a header")
        #expect(backend.requests.last?.body["cookies"] == "FIDOSESSION=42", "and in the body")
        _ = try await client.authenticateBegin(username: "alice", rpId: "bank.example")
        _ = try await client.authenticateComplete(cardResponseData: ["id": "x"], sessionId: "s-1", username: "alice")
        #expect(backend.requests.map(\.path) == ["/reg", "/reg", "/auth", "/auth"])
        #expect(backend.requests.last?.body["sessionId"] == "s-1")
        client.clearSessionCookies()
        #expect(client.cookies == nil)

        let nowhere = ArculusBackendClient(baseUrl: "no scheme here", registerPath: "reg")
        let error = await Fixture.error { _ = try await nowhere.registerBegin(username: "a", displayName: "a", rpId: "x.example") }
        #expect(error == ArculusFidoError(.unknown, "registration begin at the backend: 'no scheme here/reg' is not a URL"), "\(String(describing: error))")
    }
}
