import ArculusSDK
import CardCrypto
import Testing

/// The SDK's small types: clientDataJSON, server URLs and origins, JSON values.
@Suite("SDK support types")
struct SupportTypeTests {
    @Test("clientDataJSON: WebAuthn's serialisation, padded challenge re-encoded without padding, quotes escaped")
    func clientData() throws {
        let padded = "q83vEjRWeJCrze8SNFZ4kA=="
        let data = try ClientDataJSON.get(challenge: padded, origin: "http://localhost:8080")
        #expect(data.text == "{\"type\":\"webauthn.get\",\"challenge\":\"q83vEjRWeJCrze8SNFZ4kA\",\"origin\":\"http://localhost:8080\",\"crossOrigin\":false}")
        #expect(data.hash == SHA256.hash(data.bytes))
        let odd = try ClientDataJSON(type: "webauthn.\"odd\"\\\u{1}", challenge: padded, origin: "https://example.com")
        #expect(odd.text.hasPrefix("{\"type\":\"webauthn.\\\"odd\\\"\\\\\\u0001\","))
    }

    @Test("clientDataJSON made directly refuses what the SDK's operations refuse, naming no operation")
    func clientDataRefusals() {
        #expect(throws: ArculusFidoError(ArculusFidoInputError(.invalidOrigin, .origin, of: nil, value: "https://a\"b",
                                                               "is not an origin: its host has '\"', which no domain name has (letters, digits and '-' only)"))) {
            _ = try ClientDataJSON.create(challenge: "q83vEjRWeJCrze8SNFZ4kA", origin: "https://a\"b")
        }
        #expect(throws: ArculusFidoError(ArculusFidoInputError(.invalidChallenge, .challenge, of: nil, value: "q83v+jRWe-Crze8SNFZ4kA",
                                                               "mixes base64url ('-' '_') and standard base64 ('+' '/'); it is neither"))) {
            _ = try ClientDataJSON.get(challenge: "q83v+jRWe-Crze8SNFZ4kA", origin: "https://example.com")
        }
    }

    @Test("a FIDO2 server: host names get https, base URLs are kept; the origin is scheme://host[:port]", arguments: [
        ("fido.example.com", "https://fido.example.com", "https://fido.example.com"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://fido.example.com:443/", "https://fido.example.com:443", "https://fido.example.com"),
        ("https://fido.example.com/base", "https://fido.example.com/base", "https://fido.example.com"),
    ])
    func server(domain: String, base: String, origin: String) {
        let server = ArculusFidoServer(domain: domain)
        #expect(server.baseURL == base)
        #expect(server.origin == origin)
        #expect(server.registrationBeginEndpoint == "fidoapi/certify/attestation/options")
        #expect(server.registrationCompleteEndpoint == "fidoapi/certify/attestation/result")
        #expect(server.authorizationBeginEndpoint == "fidoapi/certify/assertion/options")
        #expect(server.authorizationCompleteEndpoint == "fidoapi/certify/assertion/result")
        server.registrationBeginEndpoint = "/fidoapi/register/begin"
        #expect(server.registrationBeginEndpoint == "/fidoapi/register/begin")
    }

    @Test("JSON values: parse, query, print with sorted keys and plain slashes")
    func json() throws {
        let value = try JSONValue(parsing: "{\"b\":[1,2.5,null,true],\"a\":\"https://x/y\",\"c\":{\"d\":60000}}")
        #expect(value["a"]?.stringValue == "https://x/y")
        #expect(value["c"]?["d"]?.intValue == 60000)
        #expect(value["b"]?.arrayValue?.count == 4)
        #expect(value.text == "{\"a\":\"https://x/y\",\"b\":[1,2.5,null,true],\"c\":{\"d\":60000}}")
        let error = #expect(throws: JSONValue.ParseError.self) { _ = try JSONValue(parsing: "{") }
        #expect(error?.excerpt == "{")
    }
}
