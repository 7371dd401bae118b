import ArculusCard
import CardTestSupport
import CBOR
import CTAPClient
import Testing
import FIDOWire

/// Parsing what the card returns: every prefix of valid input is refused, status codes are named.
@Suite("parsing card answers", .timeLimit(.minutes(1)))
struct ParsingTests {
    @Test("authenticator data with attested credential data: every proper prefix is malformed")
    func authenticatorDataPrefixes() throws {
        let (client, _) = try Fixture.clientWithPIN()
        let made = try client.makeCredential(MakeCredentialTests.request(),
                                             token: try client.pinToken(pin: Fixture.pin, permissions: .makeCredential, rpID: Fixture.rpID))
        let bytes = made.authenticatorData.bytes
        try #require(bytes[32] & 0xC0 == 0x40, "attested credential data, no extensions")
        #expect(try ParsedAuthenticatorData(bytes) == made.authenticatorData)
        for length in 0..<bytes.count {
            let error = #expect(throws: CTAPClientError.self) { _ = try ParsedAuthenticatorData(Array(bytes.prefix(length))) }
            guard case .malformedResponse(let reason)? = error else {
                Issue.record("a prefix of \(length) bytes: \(String(describing: error)), not malformedResponse")
                continue
            }
            // Each cut is named for the part it falls in: the fixed header, the AAGUID and ID
            // length, the credential ID, the COSE key (no extensions follow it here).
            let idEnd = 55 + (Int(bytes[53]) << 8 | Int(bytes[54]))
            if length < 37 {
                #expect(reason == "authenticator data of \(length) bytes (at least 37)")
            } else if length < 55 {
                #expect(reason == "attested credential data cut short", "a prefix of \(length) bytes")
            } else if length < idEnd {
                #expect(reason == "a credential ID longer than the data", "a prefix of \(length) bytes")
            } else {
                #expect(reason.hasPrefix("the credential public key is not CBOR: "), "a prefix of \(length) bytes: \(reason)")
            }
        }
        #expect(throws: CTAPClientError.malformedResponse("1 byte(s) after the authenticator data")) {
            _ = try ParsedAuthenticatorData(bytes + [0])
        }
    }

    @Test("status codes carry their CTAP names", arguments: [
        (UInt8(0x31), "CTAP2_ERR_PIN_INVALID (0x31)"),
        (0x32, "CTAP2_ERR_PIN_BLOCKED (0x32)"),
        (0x34, "CTAP2_ERR_PIN_AUTH_BLOCKED (0x34)"),
        (0x28, "CTAP2_ERR_KEY_STORE_FULL (0x28)"),
        (0x2E, "CTAP2_ERR_NO_CREDENTIALS (0x2E)"),
        (0x01, "CTAP1_ERR_INVALID_COMMAND (0x01)"),
        (0xEE, "0xEE"),
    ])
    func names(byte: UInt8, text: String) {
        #expect(CTAPStatus(rawValue: byte).description == text)
    }

    @Test("a getInfo without versions or aaguid is malformed")
    func badInfo() {
        #expect(throws: CTAPClientError.malformedResponse("getInfo without versions")) { _ = try AuthenticatorInfo(CBORMap()) }
        #expect(throws: CTAPClientError.malformedResponse("getInfo without a 16-byte aaguid")) {
            _ = try AuthenticatorInfo([.int(1): ["FIDO_2_0"], .int(3): .bytes([1, 2])])
        }
    }

    @Test("protocol choice: 2 when listed, else 1; 1 for a CTAP 2.0 card that lists none")
    func protocolChoice() throws {
        func info(_ protocols: [Int]?) throws -> AuthenticatorInfo {
            var map: CBORMap = [.int(1): ["FIDO_2_0"], .int(3): .bytes([UInt8](repeating: 0, count: 16))]
            if let protocols { map[.int(6)] = .array(protocols.map { .int($0) }) }
            return try AuthenticatorInfo(map)
        }
        #expect(try info([1, 2]).preferredPINUVAuthProtocol == 2)
        #expect(try info([1]).preferredPINUVAuthProtocol == 1)
        #expect(try info(nil).preferredPINUVAuthProtocol == 1)
        #expect(try info([3]).preferredPINUVAuthProtocol == nil)
    }
}
