import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

@Suite("Command dispatch and request framing")
struct CommandDispatchTests {
    @Test("selection: OK on CTAP 2.1, INVALID_COMMAND on CTAP 2.0")
    func selection() throws {
        #expect(try TestClient(profile: .arculusFIDO21).send(CTAPByte.selection).status == .ok)
        #expect(try TestClient(profile: .arculusFIDO2).send(CTAPByte.selection).status == .invalidCommand)
    }

    @Test("selection with user presence declined → OPERATION_DENIED")
    func selectionDeclined() throws {
        let client = try TestClient()
        client.authenticator.userPresence = { false }
        #expect(client.send(CTAPByte.selection).status == .operationDenied)
    }

    @Test("unknown or unimplemented command bytes → INVALID_COMMAND (largeBlobs 0x0C, config 0x0D and the 0x41 preview where the profile has none)",
          arguments: [0x00, 0x03, 0x05, 0x09, 0x0C, 0x0D, 0x40, 0x41, 0x3F, 0xBF, 0xFF] as [UInt8])
    func unknownCommand(command: UInt8) throws {
        let client = try TestClient(profile: command == 0x0C ? .arculusFIDO2 : .arculusFIDO21)
        #expect(client.sendRaw([command]).status == .invalidCommand)
        #expect(client.sendRaw([command, 0xA0]).status == .invalidCommand)
    }

    @Test("empty request → INVALID_LENGTH")
    func emptyRequest() throws {
        #expect(try TestClient().sendRaw([]).status == .invalidLength)
    }

    @Test("getInfo with trailing bytes → INVALID_LENGTH", arguments: [[0xA0], [0x00], [0xA0, 0x00]] as [[UInt8]])
    func getInfoTrailing(body: [UInt8]) throws {
        let client = try TestClient()
        #expect(client.sendRaw([CTAPByte.getInfo] + body).status == .invalidLength)
    }

    /// Valid request bodies whose every strict prefix must be refused.
    static func validBodies(_ client: TestClient) throws -> [(String, UInt8, [UInt8])] {
        let session = try client.session(.two)
        return [
            ("makeCredential", CTAPByte.makeCredential,
             CBOREncoder.encode(.map(TestClient.makeCredentialRequest(extensions: ["credProtect": 2], options: ["rk": true])))),
            ("getAssertion", CTAPByte.getAssertion,
             CBOREncoder.encode(.map(TestClient.getAssertionRequest(allowList: [[UInt8](repeating: 1, count: 81)],
                                                                    options: ["up": true])))),
            ("clientPIN setPIN", CTAPByte.clientPIN,
             CBOREncoder.encode(.map(try TestClient.setPINRequest(session, newPINBlock: paddedPIN(Fixture.shortPIN))))),
        ]
    }

    @Test("every strict prefix of a valid body → INVALID_CBOR, and the card still answers")
    func everyPrefix() throws {
        let client = try TestClient()
        for (name, command, body) in try Self.validBodies(client) {
            for length in 0..<body.count {
                let reply = client.sendRaw([command] + body[0..<length])
                #expect(reply.status == .invalidCBOR, "\(name) cut at \(length) of \(body.count) bytes: \(reply)")
            }
            #expect(try client.getInfo()[int: 1] != nil)
        }
        #expect(client.authenticator.state.signatureCounter == 0)
        #expect(!client.authenticator.state.isPINSet)
        #expect(client.authenticator.state.residentCredentials.isEmpty)
        // The unmodified bodies are accepted (so the prefixes failed for being prefixes).
        for (name, command, body) in try Self.validBodies(client) where command != CTAPByte.getAssertion {
            #expect(client.sendRaw([command] + body).status == .ok, "\(name)")
        }
    }

    static let malformed: [(String, [UInt8], CTAPStatus)] = [
        ("trailing byte after the map", [0xA1, 0x01, 0x01, 0x00], .invalidCBOR),
        ("indefinite-length map", [0xBF, 0x01, 0x01, 0xFF], .invalidCBOR),
        ("indefinite-length byte string", [0xA1, 0x01, 0x5F, 0x41, 0x00, 0xFF], .invalidCBOR),
        ("tag 24 around the map", [0xD8, 0x18, 0xA1, 0x01, 0x01], .cborUnexpectedType),
        ("tagged value inside the map", [0xA1, 0x01, 0xC1, 0x01], .cborUnexpectedType),
        ("half-precision float value", [0xA1, 0x01, 0xF9, 0x3C, 0x00], .cborUnexpectedType),
        ("top-level array", [0x82, 0x01, 0x02], .cborUnexpectedType),
        ("top-level integer", [0x01], .cborUnexpectedType),
        ("top-level text", [0x61, 0x61], .cborUnexpectedType),
        ("duplicate map key", [0xA2, 0x01, 0x01, 0x01, 0x02], .invalidCBOR),
        ("non-shortest integer", [0xA1, 0x18, 0x01, 0x01], .invalidCBOR),
        ("invalid UTF-8 text", [0xA1, 0x01, 0x62, 0xC3, 0x28], .invalidCBOR),
        ("reserved additional information", [0xA1, 0x01, 0x1C], .invalidCBOR),
        ("byte string longer than the input", [0xA1, 0x01, 0x58, 0xFF, 0x00], .invalidCBOR),
    ]

    @Test("malformed CBOR bodies → exact status", arguments: malformed.map(\.0),
          [CTAPByte.makeCredential, CTAPByte.getAssertion, CTAPByte.clientPIN, CTAPByte.credentialManagement])
    func malformedBody(name: String, command: UInt8) throws {
        let (_, body, expected) = try #require(Self.malformed.first { $0.0 == name })
        let client = try TestClient()
        #expect(client.sendRaw([command] + body).status == expected)
        #expect(try client.getInfo()[int: 1] != nil)
    }
}
