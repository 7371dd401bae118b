import CardTestSupport
import CBOR
import CTAP2
import Testing
import TestSupport

/// PIN/UV auth protocol two authenticates with the whole HMAC-SHA-256 (32 bytes, CTAP 2.1
/// §6.5.7 authenticate/verify); protocol one with its first 16 bytes. A card that compared only a
/// prefix would take a forged parameter: each command is tried with the right parameter, then with
/// one wrong in a single byte of its last 16 — which only a full comparison catches.
@Suite("PIN/UV auth protocol 2: the whole 32-byte pinUvAuthParam is checked")
struct PINProtocolTwoParamTests {
    enum Command: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case makeCredential, getAssertion, credentialManagement
        var testDescription: String { rawValue }
    }

    /// The request for `command`, authenticated with `token`, its pinUvAuthParam passed through `change`.
    static func request(_ command: Command, client: TestClient, token: PlatformToken,
                        change: ([UInt8]) -> [UInt8]) throws -> (byte: UInt8, body: CBORMap) {
        switch command {
        case .makeCredential:
            var request = TestClient.makeCredentialRequest(userId: [7], token: token)
            request[int: 8] = .bytes(change(try #require(request[int: 8]?.bytesValue)))
            return (0x01, request)
        case .getAssertion:
            var request = TestClient.getAssertionRequest(token: token)
            request[int: 6] = .bytes(change(try #require(request[int: 6]?.bytesValue)))
            return (0x02, request)
        case .credentialManagement:
            var request = TestClient.credentialManagementRequest(0x01, token: token)  // getCredsMetadata
            request[int: 4] = .bytes(change(try #require(request[int: 4]?.bytesValue)))
            return (0x0A, request)
        }
    }

    static func permission(_ command: Command) -> UInt64 {
        switch command {
        case .makeCredential: PermissionBit.makeCredential
        case .getAssertion: PermissionBit.getAssertion
        case .credentialManagement: PermissionBit.credentialManagement
        }
    }

    @Test("a param wrong only in one of its last 16 bytes → PIN_AUTH_INVALID; the right one → CTAP2_OK",
          arguments: Command.allCases, [16, 24, 31])
    func lastBytesCount(command: Command, flipped index: Int) throws {
        let client = try TestClient()
        _ = try client.makeCredential(rk: true)  // a discoverable credential for getAssertion to find
        #expect(try client.setPIN(Fixture.shortPIN, .two).status == .ok)
        let rpId: String? = command == .credentialManagement ? nil : Fixture.rpID
        let forged = try Self.request(command, client: client,
                                      token: try client.token(Fixture.shortPIN, .two, permissions: Self.permission(command), rpId: rpId)) {
            #expect($0.count == 32, "protocol two's pinUvAuthParam is 32 bytes")
            var param = $0
            param[index] ^= 0x01
            return param
        }
        #expect(client.send(forged.byte, forged.body).status == .pinAuthInvalid)
        // A fresh token, so that the refusal above did not use it up either way.
        let genuine = try Self.request(command, client: client,
                                       token: try client.token(Fixture.shortPIN, .two, permissions: Self.permission(command), rpId: rpId)) { $0 }
        #expect(client.send(genuine.byte, genuine.body).status == .ok)
    }

    @Test("protocol two's param cut to protocol one's 16 bytes → PIN_AUTH_INVALID", arguments: Command.allCases)
    func truncated(command: Command) throws {
        let client = try TestClient()
        _ = try client.makeCredential(rk: true)
        #expect(try client.setPIN(Fixture.shortPIN, .two).status == .ok)
        let rpId: String? = command == .credentialManagement ? nil : Fixture.rpID
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.permission(command), rpId: rpId)
        let cut = try Self.request(command, client: client, token: token) { Array($0.prefix(16)) }
        #expect(client.send(cut.byte, cut.body).status == .pinAuthInvalid)
    }
}
