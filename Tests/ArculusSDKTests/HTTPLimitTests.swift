import ArculusSDK
import CardTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What a server can make the SDK do: no redirect followed, no wait past the caller's timeout
/// however the server sends, no answer longer than 1 MiB read, a timeout the SDK can keep, and
/// advice when https meets a server without TLS.
@Suite("HTTP: the limits a server meets", .timeLimit(.minutes(1)))
struct HTTPLimitTests {
    /// registerUser against `server` (the card has a PIN); its error.
    static func register(_ server: ArculusFidoServer) async throws -> (ArculusFidoError?, CardUnderTest) {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let error = await Fixture.error {
            _ = try await sdk.throwing.registerUser(fidoServer: server, pin: Fixture.pin, username: "alice", displayName: "Alice",
                                                    relyingParty: "localhost")
        }
        return (error, connector)
    }

    @Test("a redirect is not followed, to another host or anywhere: 601 naming where it pointed, and nothing (no cookie) goes there")
    func redirect() async throws {
        let elsewhere = try TestHTTPServer { _ in .json(200, ["status": "ok"]) }
        let server = try TestHTTPServer { _ in
            .text(307, "", headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/steal", "Set-Cookie": "SESSION=secret"])
        }
        let configuration = ArculusFidoServer(domain: server.url)
        let (error, connector) = try await Self.register(configuration)
        #expect(error == ArculusFidoError(.unknown, "registerUser: registration begin: \(server.url)/fidoapi/certify/attestation/options answered HTTP 307, a redirect to http://127.0.0.1:\(elsewhere.port)/steal; the SDK follows no redirect (the session cookie and the card's response would go with it): give the server's own address",
                                          httpStatus: 307))
        #expect(elsewhere.requests.isEmpty)
        #expect(connector.card.credentials.isEmpty)

        let backend = ArculusBackendClient(baseUrl: server.url, timeout: 5)
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let backendError = await Fixture.error {
            _ = try await sdk.authenticateViaBackend(backend: backend, pin: Fixture.pin, username: "alice", rpId: "localhost")
        }
        #expect(backendError?.httpStatus == 307 && backendError?.message.contains("the SDK follows no redirect") == true)
        #expect(elsewhere.requests.isEmpty)
    }

    @Test("a server that trickles its answer a byte at a time cannot outlive the timeout")
    func trickle() async throws {
        let server = try TestHTTPServer { _ in .trickle(bytes: 200, interval: .milliseconds(200)) }
        let configuration = ArculusFidoServer(domain: server.url)
        configuration.timeout = 1
        let clock = ContinuousClock()
        let start = clock.now
        let (error, _) = try await Self.register(configuration)
        let waited = start.duration(to: clock.now)
        #expect(error == ArculusFidoError(.unknown, "registerUser: registration begin: \(server.url)/fidoapi/certify/attestation/options did not answer within 1 s",
                                          urlError: URLError(.timedOut)))
        #expect(waited < .seconds(6), "ended by the deadline (1 s), not by 200 bytes at 0.2 s each (40 s)")
        server.stop()
    }

    @Test("an answer over 1 MiB is cut off, whether its length is declared or not", arguments: [true, false])
    func huge(declared: Bool) async throws {
        let bytes = declared ? 300 << 20 : 3 << 20
        let server = try TestHTTPServer { _ in declared ? .declareOnly(bytes: bytes) : .huge(bytes: bytes, declared: false) }
        let (error, _) = try await Self.register(ArculusFidoServer(domain: server.url))
        let size = declared ? "of \(bytes) bytes" : "longer than that"
        #expect(error == ArculusFidoError(.unknown, "registerUser: registration begin: \(server.url)/fidoapi/certify/attestation/options sent an answer \(size); the SDK reads at most 1048576 bytes (1 MiB) from a server",
                                          urlError: URLError(.dataLengthExceedsMaximum)))
        server.stop()
    }

    @Test("an answer of exactly 1 MiB is read")
    func atTheLimit() async throws {
        let server = try TestHTTPServer { _ in .huge(bytes: 1 << 20, declared: true) }
        let (error, _) = try await Self.register(ArculusFidoServer(domain: server.url))
        #expect(error == ArculusFidoError(.unknown, "registerUser: the FIDO2 server refused the registration options: HTTP 200, not JSON: \(String(repeating: "x", count: 200))",
                                          httpStatus: 200))
    }

    @Test("https to a server without TLS: the advice names the form to give, with and without a scheme")
    func tlsAdvice() async throws {
        let server = try TestHTTPServer { _ in .json(200, ["status": "ok"]) }
        let host = "localhost:\(server.port)"
        let (bare, _) = try await Self.register(ArculusFidoServer(domain: host))
        #expect(bare?.message.hasPrefix("registerUser: registration begin: cannot reach https://\(host)/fidoapi/certify/attestation/options: ") == true)
        #expect(bare?.message.hasSuffix("; '\(host)' has no scheme, so the SDK spoke https to it and the TLS handshake failed: for a server without TLS give http://\(host), with TLS https://\(host)") == true,
                "\(String(describing: bare))")
        let (explicit, _) = try await Self.register(ArculusFidoServer(domain: "https://\(host)"))
        #expect(explicit?.message.hasSuffix("; the TLS handshake with \(host) failed: if the server there speaks plain HTTP, give http://\(host)") == true,
                "\(String(describing: explicit))")
    }

    @Test("a timeout the SDK cannot keep is refused before any server or the card", arguments: [0, -2, 1e300, 3601, Double.nan])
    func timeouts(seconds: Double) async throws {
        let server = try TestHTTPServer { _ in .json(200, ["status": "ok"]) }
        let configuration = ArculusFidoServer(domain: server.url)
        configuration.timeout = seconds
        let (error, connector) = try await Self.register(configuration)
        #expect(error == ArculusFidoError(ArculusFidoInputError(.invalidTimeout, .fidoServerTimeout, of: .registerUser, value: "\(seconds)",
                                                                "is not a number of seconds from 0.001 to 3600")))
        #expect(server.requests.isEmpty && connector.taps == 1)
    }
}
