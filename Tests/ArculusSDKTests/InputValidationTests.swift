import ArculusCard
import ArculusSDK
import CardCrypto
import CardTestSupport
import CTAPClient
import Foundation
import Testing

/// A caller's mistake is 700 Invalid Input naming the operation, the parameter, the value and
/// what is wrong, and the card is not touched: no tap, no credential, no PIN attempt used.
@Suite("input validation", .timeLimit(.minutes(1)))
struct InputValidationTests {
    /// What a refusal must be.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let kind: ArculusFidoInputError.Kind
        let parameter: ArculusFidoParameter
        let value: String?
        /// The whole message in Swift terms.
        let message: String
        var testDescription: String { message }
    }

    /// Runs `body` on a card with the PIN set and expects `expected`, with the card untouched.
    static func expectRefused(_ expected: Refusal, of operation: ArculusFidoOperation,
                              sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: (ArculusFido) async throws -> Void) async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let taps = connector.taps
        let error = await Fixture.error { try await body(sdk) }
        #expect(error?.code == .invalidInput, sourceLocation: sourceLocation)
        #expect(error?.input?.kind == expected.kind, sourceLocation: sourceLocation)
        #expect(error?.input?.operation == operation, sourceLocation: sourceLocation)
        #expect(error?.input?.parameter == expected.parameter, sourceLocation: sourceLocation)
        #expect(error?.input?.value == expected.value, sourceLocation: sourceLocation)
        #expect(error?.message == expected.message, sourceLocation: sourceLocation)
        #expect(error?.ctapStatus == nil && error?.pinRetries == nil, sourceLocation: sourceLocation)
        #expect(connector.taps == taps, "the card was not tapped", sourceLocation: sourceLocation)
        #expect(connector.card.credentials.isEmpty, sourceLocation: sourceLocation)
        #expect(connector.card.pinState.retries == 8, sourceLocation: sourceLocation)
    }

    static func register(_ sdk: ArculusFido, pin: String = Fixture.pin, username: String = "alice", rpId: String = Fixture.rpID,
                         challenge: String = Fixture.challenge, origin: String = Fixture.origin) async throws {
        _ = try await sdk.registerCardOnly(pin: pin, username: username, displayName: "", rpId: rpId, challenge: challenge, origin: origin)
    }

    /// A value as messages show it: in quotes, escaped, cut after 77 characters.
    static func quoted(_ value: String) -> String {
        (value.count > 80 ? String(value.prefix(77)) + "..." : value).debugDescription
    }

    static let anyway = " (with allowRPIDMismatch it is signed anyway, for a test that wants the mismatch)"

    @Test("RP IDs that are not domain names as browsers give them", arguments: [
        ("", "is empty; give the relying party's domain, e.g. example.com"),
        (" ", "is blank; give the relying party's domain, e.g. example.com"),
        ("https://example.com", "is a URL; give the relying party's domain, e.g. example.com"),
        ("https://fido.example.com/login", "is a URL; give the relying party's domain, e.g. fido.example.com"),
        ("exa mple.com", "contains whitespace; an RP ID is a bare domain name, e.g. example.com"),
        ("example.com/path", "has a path; give the domain alone: example.com"),
        ("127.0.0.1", "is an IP address; WebAuthn RP IDs are domain names (browsers refuse IP addresses), e.g. localhost for a local test server"),
        ("[::1]", "is an IP address; WebAuthn RP IDs are domain names (browsers refuse IP addresses), e.g. localhost for a local test server"),
        ("example.com:443", "has a port; an RP ID is the domain alone: example.com"),
        ("EXAMPLE.com", "has capital letters; RP IDs are lowercase: example.com"),
        ("example.com.", "ends in a dot; give it without: example.com"),
        ("bücher.example", "is not ASCII; give its A-label (punycode, xn--...) form, as browsers do"),
        ("ex_ample.com", "has '_', which no domain name has (letters, digits and '-' only)"),
        ("example..com", "has an empty label (two dots in a row, or a leading dot)"),
        ("-example.com", "has a label that starts or ends with '-'"),
        (String(repeating: "a", count: 64) + ".com", "has a label of 64 characters; at most 63 fit"),
        ("ab--cd.example", "has the label 'ab--cd', whose '--' in third and fourth place only A-labels (xn--) may have"),
        ("example.123", "ends in a numeric label, which no domain name does"),
        ([String](repeating: String(repeating: "a", count: 63), count: 4).joined(separator: ".") + ".com",
         "is 259 characters long; a domain name has at most 253"),
    ])
    func rpIDs(id: String, reason: String) async throws {
        let expected = Refusal(kind: .invalidRPID, parameter: .rpId, value: id,
                               message: "registerCardOnly: rpId \(Self.quoted(id)) \(reason)")
        try await Self.expectRefused(expected, of: .registerCardOnly) { sdk in try await Self.register(sdk, rpId: id) }
        try await Self.expectRefused(Refusal(kind: .invalidRPID, parameter: .rpId, value: id,
                                             message: expected.message.replacingOccurrences(of: "registerCardOnly", with: "authenticateCardOnly")),
                                     of: .authenticateCardOnly) { sdk in
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice", rpId: id, challenge: Fixture.challenge,
                                                   origin: Fixture.origin)
        }
    }

    @Test("RP IDs that do not fit the origin: neither its host nor a registrable suffix", arguments: [
        ("example.org", "https://example.com", ArculusFidoParameter.rpId,
         "rpId \"example.org\" is neither the host of origin \"https://example.com\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)"),
        ("fido.example.com", "https://example.com", .rpId,
         "rpId \"fido.example.com\" is neither the host of origin \"https://example.com\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)"),
        ("ample.com", "https://example.com", .rpId,
         "rpId \"ample.com\" is neither the host of origin \"https://example.com\" nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)"),
        ("com", "https://example.com", .rpId,
         "rpId \"com\" is a single label, a public suffix of the host of origin \"https://example.com\", which no site may claim; give the registrable domain, e.g. example.com"),
        ("localhost", "http://127.0.0.1:8080", .origin,
         "origin \"http://127.0.0.1:8080\" has an IP address for its host, and WebAuthn wants a domain there (§5.1.3), so no RP ID fits it; use http://localhost:8080"),
    ])
    func mismatches(id: String, origin: String, parameter: ArculusFidoParameter, message: String) async throws {
        let expected = Refusal(kind: .rpIDMismatch, parameter: parameter, value: parameter == .rpId ? id : origin,
                               message: "registerCardOnly: " + message + Self.anyway)
        try await Self.expectRefused(expected, of: .registerCardOnly) { sdk in try await Self.register(sdk, rpId: id, origin: origin) }

        // With allowRPIDMismatch the card signs what it is given.
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let response = try JSONValue(parsing: try await sdk.registerCardOnly(
            pin: Fixture.pin, username: "alice", displayName: "", rpId: id, challenge: Fixture.challenge, origin: origin,
            allowRPIDMismatch: true))
        #expect(try CardOnlyOperationTests.authenticatorData(response).rpIDHash == SHA256.hash(Array(id.utf8)))
        #expect(connector.card.credentials.map(\.rpId) == [id])
    }

    @Test("RP IDs and origins browsers accept", arguments: [
        ("example.com", "https://example.com"), ("example.com", "https://fido.example.com"),
        ("example.com", "https://example.com:8443"), ("localhost", "http://localhost:8080"),
        ("app.localhost", "http://app.localhost"), ("xn--bcher-kva.example", "https://xn--bcher-kva.example"),
    ])
    func accepted(id: String, origin: String) async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let response = try JSONValue(parsing: try await sdk.registerCardOnly(
            pin: Fixture.pin, username: "alice", displayName: "", rpId: id, challenge: Fixture.challenge, origin: origin))
        let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        #expect(try JSONValue(parsing: String(decoding: clientData, as: UTF8.self))["origin"]?.stringValue == origin)
        #expect(connector.card.credentials.map(\.rpId) == [id])
    }

    @Test("origins that are not what clientDataJSON carries", arguments: [
        ("", "is empty; give the origin the relying party's server expects, e.g. https://example.com"),
        ("example.com", "is not an origin: it has no scheme; give scheme and host, e.g. https://example.com"),
        ("https://example.com/", "ends in '/'; an origin ends after the host and port: https://example.com"),
        ("https://example.com/login?next=1", "has a path, query or fragment ('/login?next=1'); an origin ends after the host and port: https://example.com"),
        ("https://example.com#top", "has a path, query or fragment ('#top'); an origin ends after the host and port: https://example.com"),
        ("https://Example.com", "has capital letters; origins are lowercase: https://example.com"),
        ("https://example.com:443", "names the default port 443; browsers leave it out: https://example.com"),
        ("http://example.com", "is http; WebAuthn needs a secure origin, https (http only for localhost and loopback addresses): https://example.com"),
        ("ftp://example.com", "has the scheme 'ftp'; WebAuthn origins are https (http only on localhost), e.g. https://example.com"),
        ("https://user@example.com", "has user information before '@'; an origin is scheme://host[:port] only"),
        ("https://example.com:99999", "has the port '99999', which is not a number from 1 to 65535"),
        ("https://", "has no host; give one, e.g. https://example.com"),
        ("https://exa mple.com", "contains whitespace; an origin is scheme://host[:port], e.g. https://example.com"),
        ("https://ex_ample.com", "is not an origin: its host has '_', which no domain name has (letters, digits and '-' only)"),
    ])
    func origins(origin: String, reason: String) async throws {
        let expected = Refusal(kind: .invalidOrigin, parameter: .origin, value: origin,
                               message: "registerCardOnly: origin \(Self.quoted(origin)) \(reason)")
        try await Self.expectRefused(expected, of: .registerCardOnly) { sdk in try await Self.register(sdk, origin: origin) }
    }

    @Test("an IP address origin is signed for with allowRPIDMismatch only, as it was given")
    func loopbackOrigin() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let response = try JSONValue(parsing: try await sdk.registerCardOnly(
            pin: Fixture.pin, username: "alice", displayName: "", rpId: Fixture.rpID, challenge: Fixture.challenge,
            origin: "http://127.0.0.1:8080", allowRPIDMismatch: true))
        let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        #expect(String(decoding: clientData, as: UTF8.self).contains("\"origin\":\"http://127.0.0.1:8080\""))
    }

    @Test("challenges that are not base64url of 16 bytes or more", arguments: [
        ("", "is empty; pass the server's challenge as it sent it"),
        ("not base64!", "contains whitespace, which base64url has not"),
        ("notbase64!AAAAAAAAAAAAAAAAAAAA", "has '!', which base64url has not (A-Z a-z 0-9 - _ only)"),
        ("q83v=EjRWeJCrze8SNFZ4kA", "has '=' before its end; padding comes last"),
        ("q83v+jRWe-Crze8SNFZ4kA", "mixes base64url ('-' '_') and standard base64 ('+' '/'); it is neither"),
        ("AAAA", "is 3 bytes; WebAuthn challenges are at least 16 random bytes; pass the server's challenge as it sent it"),
        ("AAAAAAAAAAAAAAAAAAAA", "is 15 bytes; WebAuthn challenges are at least 16 random bytes; pass the server's challenge as it sent it"),
        ("AAAAA", "is cut short: 5 base64url characters make no whole number of bytes"),
        ("q83vEjRWeJCrze8SNFZ4kA=", "has 1 '=' where base64url of that length has 2"),
        ("q83vEjRWeJCrze8SNFZ4kB", "is not canonical base64url: its last character has bits beyond the last byte"),
    ])
    func challenges(challenge: String, reason: String) async throws {
        let expected = Refusal(kind: .invalidChallenge, parameter: .challenge, value: challenge,
                               message: "registerCardOnly: challenge \(Self.quoted(challenge)) \(reason)")
        try await Self.expectRefused(expected, of: .registerCardOnly) { sdk in try await Self.register(sdk, challenge: challenge) }
    }

    @Test("a challenge in standard base64 with '+' and '/' is read as such: clientDataJSON carries its bytes in base64url")
    func standardBase64Challenge() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF] + (0..<16).map { UInt8($0) }
        let standard = Data(bytes).base64EncodedString()
        #expect(standard.contains("+") && standard.contains("/"))
        let response = try JSONValue(parsing: try await sdk.registerCardOnly(
            pin: Fixture.pin, username: "alice", displayName: "", rpId: Fixture.rpID, challenge: standard, origin: Fixture.origin))
        let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        #expect(String(decoding: clientData, as: UTF8.self).contains("\"challenge\":\"\(Base64URL.encode(bytes))\""))
    }

    @Test("a challenge of exactly 16 bytes, with its '=' padding, or in standard base64 as base64EncodedString() writes it (the seeds' guide), is taken; clientDataJSON carries it as base64url, unpadded")
    func paddedChallenge() async throws {
        let (sdk, _) = try await Fixture.sdkWithPIN()
        let standard = Data(Base64URL.decode("q83vEjRWeJCrze8SNFZ4kA") ?? []).base64EncodedString()
        #expect(standard == "q83vEjRWeJCrze8SNFZ4kA==")
        for challenge in ["q83vEjRWeJCrze8SNFZ4kA", "q83vEjRWeJCrze8SNFZ4kA==", standard] {
            let response = try JSONValue(parsing: try await sdk.registerCardOnly(
                pin: Fixture.pin, username: "alice", displayName: "", rpId: Fixture.rpID, challenge: challenge, origin: Fixture.origin))
            let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
            #expect(String(decoding: clientData, as: UTF8.self).contains("\"challenge\":\"q83vEjRWeJCrze8SNFZ4kA\""))
        }
    }

    static let badCredentialIDs = [
        ("", "is empty; give the id of a registration response (base64url)"),
        ("AAAA", "is 3 bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)"),
        ("abc!", "has '!', which base64url has not (A-Z a-z 0-9 - _ only)"),
        (String(repeating: "A", count: 1368), "is 1026 bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)"),
        ("AAAAAAAAAAAAAAAAAAAAAA+", "is not canonical base64url: its last character has bits beyond the last byte"),
        ("AAAAAAAAAAAAAAAAAAAAA+-A", "mixes base64url ('-' '_') and standard base64 ('+' '/'); it is neither"),
    ]

    @Test("credential IDs that are not base64url of 16 to 1023 bytes", arguments: badCredentialIDs)
    func credentialIDs(id: String, reason: String) async throws {
        let quoted = Self.quoted(id)
        try await Self.expectRefused(Refusal(kind: .invalidCredentialID, parameter: .credentialId, value: id,
                                             message: "deleteCredentialByCredentialId: credentialId \(quoted) \(reason)"),
                                     of: .deleteCredentialByCredentialId) { sdk in
            try await sdk.deleteCredentialByCredentialId(pin: Fixture.pin, credentialId: id)
        }
        try await Self.expectRefused(Refusal(kind: .invalidCredentialID, parameter: .allowCredentials, value: id,
                                             message: "authenticateCardOnly: allowCredentials \(quoted) \(reason)"),
                                     of: .authenticateCardOnly) { sdk in
            _ = try await sdk.authenticateCardOnly(pin: Fixture.pin, username: "alice", rpId: Fixture.rpID, challenge: Fixture.challenge,
                                                   origin: Fixture.origin, allowCredentials: [Base64URL.encode([UInt8](repeating: 7, count: 16)), id])
        }
    }

    @Test("user names that are empty or blank", arguments: [("", "is empty"), (" \t", "is blank")])
    func usernames(name: String, what: String) async throws {
        try await Self.expectRefused(Refusal(kind: .invalidUser, parameter: .username, value: name,
                                             message: "registerCardOnly: username \(Self.quoted(name)) \(what); give the account's name, e.g. alice@example.com"),
                                     of: .registerCardOnly) { sdk in try await Self.register(sdk, username: name) }
    }

    @Test("names over CTAP's 64 bytes are cut at a character boundary")
    func truncation() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let displayName = String(repeating: "é", count: 40)  // 80 bytes: 32 characters fit
        _ = try await sdk.registerCardOnly(pin: Fixture.pin, username: "alice", displayName: displayName, rpId: Fixture.rpID,
                                           challenge: Fixture.challenge, origin: Fixture.origin)
        #expect(connector.card.credentials.first?.userDisplayName == String(repeating: "é", count: 32))
    }
}
