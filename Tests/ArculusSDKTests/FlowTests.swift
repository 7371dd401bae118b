import ArculusCard
import ArculusSDK
import CardTestSupport
import CTAPClient
import CardCrypto
import Foundation
import Testing

/// Both flows against stand-in servers: who decides the RP (the server, as in the vendor's
/// samples, unless strict RP mode), what the result names, the server asked before the card,
/// the rollback after a refused result.
@Suite("flows against stand-in servers", .timeLimit(.minutes(1)))
struct FlowTests {
    static let strictAdvice = "with strictRP the card signs for relyingParty only, so it was not used"

    @Test("client-direct: register then authenticate; the server is asked before the card, the result names the RP ID signed for")
    func clientDirect() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        let taps = connector.taps
        let registered = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                             displayName: "Alice", relyingParty: "localhost")
        #expect(registered.rpId == "localhost")
        #expect(registered.httpStatus == 200 && registered.serverResponse == ["status": "ok", "errorMessage": ""])
        let stored = try #require(connector.card.credentials.first)
        #expect(Base64URL.encode(stored.id) == registered.credentialId)
        #expect(stored.userId == Array("id-alice".utf8), "the server's user.id is the user handle")
        #expect(connector.taps == taps + 1, "one tap")
        #expect(server.paths == ["/fidoapi/certify/attestation/options", "/fidoapi/certify/attestation/result"])
        let result = try #require(server.http.requests.last)
        #expect(result.header("Cookie")?.hasPrefix("SESSION=") == true, "the options' session cookie goes with the result")
        #expect(result.body["response"]?["attestationObject"] != nil)

        let signed = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                             displayName: "Alice", relyingParty: "localhost")
        #expect(signed == ArculusFidoServerResult(rpId: "localhost", credentialId: registered.credentialId,
                                                  serverResponse: ["status": "ok", "errorMessage": ""], httpStatus: 200))
        #expect(await sdk.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice", displayName: "Alice",
                                           relyingParty: "localhost") == "Authentication successful")
    }

    @Test("a server that fails its options is asked before the card: the card is not tapped")
    func serverFirst() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        server.http.answer { _ in .json(503, ["status": "failed", "errorMessage": "down"]) }
        let taps = connector.taps
        for register in [true, false] {
            let error = await Fixture.error {
                if register {
                    _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                            displayName: "Alice", relyingParty: "localhost", resetDevice: true)
                } else {
                    _ = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                                displayName: "Alice", relyingParty: "localhost")
                }
            }
            #expect(error?.code == .unknown && error?.httpStatus == 503)
        }
        #expect(connector.taps == taps, "no tap: with resetDevice the card is not even erased for a server that is down")
        #expect(connector.card.pinState.isSet)
    }

    @Test("the server decides the RP: relyingParty is the fallback; strictRP refuses another RP ID with 702 and leaves the card alone")
    func serverNamesTheRP() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        let registered = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                             displayName: "Alice", relyingParty: "example.com")
        #expect(registered.rpId == "localhost", "signed for the server's RP, and the result says so")
        #expect(connector.card.credentials.map(\.rpId) == ["localhost"])

        let taps = connector.taps
        let exchanged = connector.exchanged
        let strict = await Fixture.error {
            _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "bob",
                                                    displayName: "Bob", relyingParty: "example.com", strictRP: true)
        }
        #expect(strict == ArculusFidoError(.relyingPartyMismatch,
                                           "registerUser: the FIDO2 server's registration options: rp.id is \"localhost\", not relyingParty \"example.com\"; \(Self.strictAdvice)"))
        let strictSignIn = await Fixture.error {
            _ = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                        displayName: "Alice", relyingParty: "example.com", strictRP: true)
        }
        #expect(strictSignIn == ArculusFidoError(.relyingPartyMismatch,
                                                 "authenticateUser: the FIDO2 server's authentication options: rpId is \"localhost\", not relyingParty \"example.com\"; \(Self.strictAdvice)"))
        #expect(await sdk.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "bob", displayName: "Bob",
                                       relyingParty: "example.com", strictRP: true) == strict?.description)
        #expect(connector.taps == taps && connector.exchanged == exchanged, "the card was not touched")
        #expect(connector.card.credentials.count == 1)

        // Strict, with the server's own RP ID: signed as usual.
        let same = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                           displayName: "Alice", relyingParty: "localhost", strictRP: true)
        #expect(same.rpId == "localhost")
    }

    @Test("no relyingParty: the server's RP; a server that names none then needs one (700); strictRP needs one before any server is asked")
    func fallback() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        let registered = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                             displayName: "Alice", relyingParty: nil)
        #expect(registered.rpId == "localhost")

        server.settings { $0.rpID = nil }
        let none = await Fixture.error {
            _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "bob",
                                                    displayName: "Bob", relyingParty: nil)
        }
        #expect(none == ArculusFidoError(ArculusFidoInputError(
            .invalidRPID, .relyingParty, of: .registerUser, value: nil,
            "is needed: there is no rp.id in the FIDO2 server's registration options; give the relying party's domain, e.g. example.com")))
        let fallback = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "carol",
                                                           displayName: "Carol", relyingParty: "localhost")
        #expect(fallback.rpId == "localhost")
        #expect(connector.card.credentials.count == 2)

        let asked = server.http.requests.count
        let strict = await Fixture.error {
            _ = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                        displayName: "Alice", relyingParty: nil, strictRP: true)
        }
        #expect(strict == ArculusFidoError(ArculusFidoInputError(.invalidRPID, .relyingParty, of: .authenticateUser, value: nil,
                                                                 "is needed with \(ArculusFidoParameter.strictRP, of: .authenticateUser): the card signs for that RP ID only")))
        #expect(server.http.requests.count == asked, "refused before the server was asked")
    }

    @Test("a server whose RP ID is not a string is the server's fault (601)")
    func rpIDNotAString() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        server.http.answer { _ in .json(200, ["status": "ok", "challenge": .string(Fixture.challenge), "rpId": 7]) }
        let error = await Fixture.error {
            _ = try await sdk.throwing.authenticateUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                        displayName: "Alice", relyingParty: "localhost")
        }
        #expect(error == ArculusFidoError(.unknown, "authenticateUser: the FIDO2 server's authentication options: rpId is 7, not a string"))
    }

    @Test("a refused registration result: the credential is deleted again in a tap of its own")
    func rollback() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let server = try StandInFIDO2Server()
        server.settings { $0.registrationResult = .json(400, ["status": "failed", "errorMessage": "attestation not trusted"]) }
        let taps = connector.taps
        let error = await Fixture.error {
            _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                    displayName: "Alice", relyingParty: "localhost")
        }
        #expect(error == ArculusFidoError(.unknown, "registerUser: the FIDO2 server refused the registration: HTTP 400: attestation not trusted; the new credential was deleted from the card again",
                                          httpStatus: 400))
        #expect(connector.card.credentials.isEmpty)
        #expect(connector.taps == taps + 2, "the registration's tap, then the rollback's")

        // The card leaves at the rollback's first APDU: the registration's APDUs are those of a
        // registration that is accepted.
        server.settings { $0.registrationResult = .json(200, ["status": "ok"]) }
        let before = connector.exchanged
        _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "bob", displayName: "Bob",
                                                relyingParty: "localhost")
        let registration = connector.exchanged - before
        server.settings { $0.registrationResult = .json(400, ["status": "failed", "errorMessage": "no"]) }
        connector.removeAfter = connector.exchanged + registration
        let lost = await Fixture.error {
            _ = try await sdk.throwing.registerUser(fidoServer: server.configuration(), pin: Fixture.pin, username: "alice",
                                                    displayName: "Alice", relyingParty: "localhost")
        }
        #expect(lost == ArculusFidoError(.unknown, "registerUser: the FIDO2 server refused the registration: HTTP 400: no (Warning: Credential may still exist on card - rollback failed: 600 Tag Lost: registerUser: the card left the reader (the card left the field); hold it on the reader and try again)",
                                         httpStatus: 400))
        connector.putBack()
        #expect(connector.card.credentials.count == 2, "bob's, and alice's that could not be deleted")
    }

    @Test("backend-proxied: the backend decides the RP (bank.example here) and the result says so; strictRP refuses it with 702, the card untouched")
    func backendNamesTheRP() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let backend = try StandInBackend(.init(rpID: "bank.example", origin: "https://bank.example"))
        let registered = try await sdk.registerViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice",
                                                          displayName: "Alice", rpId: "example.com")
        #expect(registered.rpId == "bank.example")
        #expect(registered.serverResponse == ["status": "success", "message": "done"] && registered.httpStatus == 200)
        #expect(connector.card.credentials.map(\.rpId) == ["bank.example"])
        #expect(backend.http.requests.first?.body == ["operation": "register", "username": "alice", "displayName": "Alice", "rpId": "example.com"])
        let signed = try await sdk.authenticateViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", rpId: nil)
        #expect(signed.rpId == "bank.example" && signed.credentialId == registered.credentialId)
        #expect(backend.http.requests[2].body == ["operation": "authenticate", "username": "alice"], "no rpId when none was given")
        #expect(backend.http.requests[3].body["sessionId"] == "session-1" && backend.http.requests[3].body["cookies"] == "FIDOSESSION=abc")

        let taps = connector.taps
        let advice = "with strictRP the card signs for rpId only, so it was not used"
        let strict = await Fixture.error {
            _ = try await sdk.registerViaBackend(backend: backend.client(), pin: Fixture.pin, username: "bob", displayName: "Bob",
                                                 rpId: "example.com", strictRP: true)
        }
        #expect(strict == ArculusFidoError(.relyingPartyMismatch,
                                           "registerViaBackend: the backend's fidoServerResponse: rp.id is \"bank.example\", not rpId \"example.com\"; \(advice)"))
        let strictSignIn = await Fixture.error {
            _ = try await sdk.authenticateViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", rpId: "example.com",
                                                     strictRP: true)
        }
        #expect(strictSignIn == ArculusFidoError(.relyingPartyMismatch,
                                                 "authenticateViaBackend: the backend's fidoServerResponse: rpId is \"bank.example\", not rpId \"example.com\"; \(advice)"))
        #expect(connector.taps == taps, "the card was not touched")
        #expect(connector.card.credentials.count == 1)
    }

    @Test("backend-proxied: a refused phase 3 rolls back; a backend timeout out of range is refused first")
    func backendRollback() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let backend = try StandInBackend(.init(phaseThree: .json(500, ["status": "failed", "error": "server said no"])))
        let error = await Fixture.error {
            _ = try await sdk.registerViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", displayName: "", rpId: "localhost")
        }
        #expect(error == ArculusFidoError(.unknown, "registerViaBackend: the backend refused the registration: HTTP 500: server said no; the new credential was deleted from the card again",
                                          httpStatus: 500))
        #expect(connector.card.credentials.isEmpty)
        let signIn = await Fixture.error {
            _ = try await sdk.authenticateViaBackend(backend: backend.client(), pin: Fixture.pin, username: "alice", rpId: "localhost")
        }
        #expect(signIn?.code == .noCredentials || signIn?.code == .userNotFound, "\(String(describing: signIn))")

        for timeout in [0, -1, 1e300, Double.nan, Double.infinity] {
            let refused = await Fixture.error {
                _ = try await sdk.registerViaBackend(backend: backend.client(timeout: timeout), pin: Fixture.pin, username: "alice",
                                                     displayName: "", rpId: "localhost")
            }
            #expect(refused == ArculusFidoError(ArculusFidoInputError(.invalidTimeout, .backendTimeout, of: .registerViaBackend, value: "\(timeout)",
                                                                      "is not a number of seconds from 0.001 to 3600")))
        }
    }
}
