import ArculusCard
import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import TestSupport

@Suite("authenticatorGetAssertion and authenticatorGetNextAssertion")
struct GetAssertionTests {
    @Test("the RP ID hash kept from the last assertion matches RP IDs by their bytes, not as equal strings")
    func rpIdHashKeptByBytes() throws {
        let client = try TestClient()
        let composed = "caf\u{E9}.example", decomposed = "cafe\u{301}.example"
        #expect(composed == decomposed, "Swift calls them equal")
        let made = try client.makeCredential(rpId: composed)
        let first = try client.assert(rpId: composed, allowList: [made.id])
        #expect(first.authData.rpIdHash == SHA256.hash(Array(composed.utf8)))
        // The decomposed form is another RP to a relying party: its hash differs, the ID does not unwrap.
        #expect(client.getAssertion(TestClient.getAssertionRequest(rpId: decomposed, allowList: [made.id])).status
                == .noCredentials)
        #expect(try client.assert(rpId: composed, allowList: [made.id]).authData.rpIdHash == first.authData.rpIdHash)
    }

    @Test("allowList hit: signature verifies with the key from the attestation object", arguments: [false, true])
    func allowListHit(discoverable: Bool) throws {
        let client = try TestClient()
        let made = try client.makeCredential(rk: discoverable)
        let assertion = try client.assert(allowList: [[0x01, 0x02], made.id])
        #expect(assertion.credentialId == made.id)
        #expect(assertion.verifies(with: made.publicKey))
        #expect(assertion.authData.rpIdHash == SHA256.hash(Array(Fixture.rpID.utf8)))
        #expect(assertion.authData.flags == AuthData.userPresent, "UP only: no UV, no AT, no ED")
        #expect(assertion.authData.raw.count == 37)
        #expect(assertion.numberOfCredentials == nil, "numberOfCredentials is omitted with an allowList")
        if discoverable {
            #expect(assertion.user == ["id": .bytes(Fixture.userID)])
        }
    }

    @Test("the signature counter strictly increases across assertions")
    func counterIncreases() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        var last = made.authData.counter
        for _ in 0..<3 {
            let assertion = try client.assert(allowList: [made.id])
            #expect(assertion.authData.counter > last)
            last = assertion.authData.counter
        }
    }

    @Test("a credential ID bound to another RP → NO_CREDENTIALS")
    func otherRP() throws {
        let client = try TestClient()
        let made = try client.makeCredential(rpId: Fixture.otherRpID)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .noCredentials)
        var tampered = made.id
        tampered[tampered.count / 2] ^= 0x01
        #expect(client.getAssertion(TestClient.getAssertionRequest(rpId: Fixture.otherRpID, allowList: [tampered])).status
                == .noCredentials)
    }

    @Test("no discoverable credential for the RP and no allowList → NO_CREDENTIALS")
    func nothingDiscoverable() throws {
        let client = try TestClient()
        _ = try client.makeCredential(rk: false)
        _ = try client.makeCredential(rpId: Fixture.otherRpID, rk: true)
        #expect(client.getAssertion(TestClient.getAssertionRequest()).status == .noCredentials)
    }

    @Test("discoverable lookup with 3 credentials: most recent first, then getNextAssertion, then NOT_ALLOWED")
    func discoverableLookup() throws {
        let client = try TestClient()
        var made: [MadeCredential] = []
        for index in 1...3 {
            made.append(try client.makeCredential(userId: [UInt8(index)], userName: "user\(index)", rk: true))
        }
        _ = try client.makeCredential(rpId: Fixture.otherRpID, userId: [9], rk: true)
        let first = try client.assert()
        #expect(first.numberOfCredentials == 3)
        #expect(first.credentialId == made[2].id)
        #expect(first.verifies(with: made[2].publicKey))
        #expect(first.user == ["id": .bytes([3])], "no user details without UV")
        let second = try client.getNextAssertion()
        #expect(second.credentialId == made[1].id)
        #expect(second.verifies(with: made[1].publicKey))
        #expect(second.numberOfCredentials == nil, "omitted in getNextAssertion responses")
        #expect(second.authData.counter > first.authData.counter)
        let third = try client.getNextAssertion()
        #expect(third.credentialId == made[0].id)
        #expect(third.verifies(with: made[0].publicKey))
        #expect(third.user == ["id": .bytes([1])])
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
    }

    @Test("getNextAssertion without a getAssertion → NOT_ALLOWED")
    func nextWithoutGetAssertion() throws {
        let client = try TestClient()
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
        let made = try client.makeCredential(userId: [1], rk: true)
        _ = try client.makeCredential(userId: [2], rk: true)
        // An allowList assertion leaves nothing to continue.
        _ = try client.assert(allowList: [made.id])
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
    }

    @Test("getNextAssertion with parameters → INVALID_LENGTH")
    func nextWithBody() throws {
        let client = try TestClient()
        for index in 1...2 { _ = try client.makeCredential(userId: [UInt8(index)], rk: true) }
        _ = try client.assert()
        #expect(client.send(CTAPByte.getNextAssertion, [.int(1): 1]).status == .invalidLength)
    }

    @Test("getNextAssertion state expires 30 s after the last assertion")
    func nextExpires() throws {
        let client = try TestClient()
        let clock = ManualCardClock()
        client.authenticator.use(clock)
        for index in 1...3 { _ = try client.makeCredential(userId: [UInt8(index)], rk: true) }
        _ = try client.assert()
        clock.advance(by: .seconds(25))
        _ = try client.getNextAssertion()
        clock.advance(by: .seconds(25))  // 50 s after getAssertion, 25 s after the last getNextAssertion: the timer restarted
        _ = try client.getNextAssertion()

        _ = try client.assert()
        clock.advance(by: .milliseconds(30_500))
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
        clock.advance(by: .seconds(-10))
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed, "the state was discarded")
    }

    @Test("getNextAssertion state is lost at power-off")
    func nextLostAtPowerOff() throws {
        let client = try TestClient()
        for index in 1...2 { _ = try client.makeCredential(userId: [UInt8(index)], rk: true) }
        _ = try client.assert()
        client.powerCycle()
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
    }

    @Test("another command in between ends the getNextAssertion sequence")
    func nextAfterOtherCommand() throws {
        let client = try TestClient()
        for index in 1...3 { _ = try client.makeCredential(userId: [UInt8(index)], rk: true) }
        _ = try client.assert()
        _ = try client.getInfo()
        #expect(client.send(CTAPByte.getNextAssertion).status == .notAllowed)
    }

    @Test("user details: id only for a single account even with UV; name and displayName with UV when several")
    func userDetails() throws {
        let client = try TestClient()
        try client.setPIN()
        let single = try client.makeCredential(rpId: Fixture.otherRpID, userId: [7], userName: "solo",
                                               displayName: "Solo", rk: true, token: try client.token())
        let alone = try client.assert(rpId: Fixture.otherRpID, token: try client.token())
        #expect(alone.credentialId == single.id)
        #expect(alone.user == ["id": .bytes([7])])
        #expect(alone.authData.uv)

        for index in 1...2 {
            _ = try client.makeCredential(userId: [UInt8(index)], userName: "user\(index)",
                                          displayName: "User \(index)", rk: true, token: try client.token())
        }
        let first = try client.assert(token: try client.token())
        #expect(first.authData.uv)
        #expect(first.user == ["id": .bytes([2]), "name": "user2", "displayName": "User 2"])
        let second = try client.getNextAssertion()
        #expect(second.authData.uv)
        #expect(second.user == ["id": .bytes([1]), "name": "user1", "displayName": "User 1"])

        let withoutUV = try client.assert()
        #expect(withoutUV.user == ["id": .bytes([2])])
        #expect(try client.getNextAssertion().user == ["id": .bytes([1])])
    }

    @Test("up = false: no user presence test and the UP flag is clear")
    func silent() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        var asked = false
        client.authenticator.userPresence = {
            asked = true
            return true
        }
        let assertion = try client.assert(allowList: [made.id], options: ["up": false])
        #expect(!assertion.authData.up)
        #expect(assertion.verifies(with: made.publicKey))
        #expect(!asked)
    }

    @Test("silent assertion with a token does not use up its permissions (CTAP 2.1 §6.2.2 step 9)")
    func silentKeepsToken() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential()
        let token = try client.token(permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        let silent = try client.assert(allowList: [made.id], options: ["up": false], token: token)
        #expect(silent.authData.uv)
        #expect(!silent.authData.up)
        let present = try client.assert(allowList: [made.id], token: token)
        #expect(present.authData.uv)
        #expect(present.authData.up)
        // That one collected user presence, which clears all permissions but lbw.
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: token)).status
                == .pinAuthInvalid)
    }

    @Test("declined user presence → OPERATION_DENIED, counter unchanged")
    func userPresenceDeclined() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        let counter = client.authenticator.state.signatureCounter
        client.authenticator.userPresence = { false }
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .operationDenied)
        #expect(client.authenticator.state.signatureCounter == counter)
    }

    static let parameterErrors: [Mutation] = [
        Mutation("no rpId", .missingParameter) { $0[int: 1] = nil },
        Mutation("no clientDataHash", .missingParameter) { $0[int: 2] = nil },
        Mutation("rpId is bytes", .cborUnexpectedType) { $0[int: 1] = .bytes(Array("example.com".utf8)) },
        Mutation("clientDataHash is text", .cborUnexpectedType) { $0[int: 2] = "hash" },
        Mutation("allowList is a map", .cborUnexpectedType) { $0[int: 3] = .map(["id": .bytes([1])]) },
        Mutation("allowList entry without id", .missingParameter) { $0[int: 3] = .array([.map(["type": "public-key"])]) },
        Mutation("allowList entry id is text", .cborUnexpectedType) {
            $0[int: 3] = .array([.map(["id": "abc", "type": "public-key"])])
        },
        Mutation("options is text", .cborUnexpectedType) { $0[int: 5] = "up" },
        Mutation("rk option", .unsupportedOption) { $0[int: 5] = .map(["rk": true]) },
        Mutation("rk option false", .unsupportedOption) { $0[int: 5] = .map(["rk": false]) },
        Mutation("uv = true without built-in UV", .invalidOption) { $0[int: 5] = .map(["uv": true]) },
        Mutation("pinUvAuthParam without protocol", .missingParameter) { $0[int: 6] = .bytes([UInt8](repeating: 1, count: 16)) },
        Mutation("pinUvAuthProtocol 3", .invalidParameter) {
            $0[int: 6] = .bytes([UInt8](repeating: 1, count: 16))
            $0[int: 7] = 3
        },
        Mutation("pinUvAuthParam on a CTAP 2.1 card without a PIN", .pinNotSet) {
            $0[int: 6] = .bytes([UInt8](repeating: 1, count: 16))
            $0[int: 7] = 1
        },
        Mutation("zero-length pinUvAuthParam without a PIN", .pinNotSet) {
            $0[int: 6] = .bytes([])
            $0[int: 7] = 1
        },
    ]

    @Test("parameter errors", arguments: parameterErrors)
    func parameterError(mutation: Mutation) throws {
        let client = try TestClient()
        let made = try client.makeCredential(rk: true)
        var request = TestClient.getAssertionRequest(allowList: [made.id])
        mutation.apply(&request)
        let counter = client.authenticator.state.signatureCounter
        #expect(client.getAssertion(request).status == mutation.expected)
        #expect(client.authenticator.state.signatureCounter == counter)
    }

    @Test("a pinUvAuthParam not from a token → PIN_AUTH_INVALID: with a PIN set, and on a CTAP 2.0 card without one",
          arguments: [true, false])
    func pinUvAuthParamNotFromAToken(pinSet: Bool) throws {
        let client = try TestClient(profile: pinSet ? .arculusFIDO21 : .arculusFIDO2)
        let made = try client.makeCredential()
        if pinSet { #expect(try client.setPIN().status == .ok) }
        var request = TestClient.getAssertionRequest(allowList: [made.id])
        request[int: 6] = .bytes([UInt8](repeating: 1, count: 16))
        request[int: 7] = 1
        #expect(client.getAssertion(request).status == .pinAuthInvalid)
    }

    @Test("zero-length pinUvAuthParam with a PIN set → PIN_INVALID")
    func probeWithPIN() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = TestClient.getAssertionRequest()
        request[int: 6] = .bytes([])
        request[int: 7] = 1
        #expect(client.getAssertion(request).status == .pinInvalid)
    }

    @Test("getAssertion token rules: ga permission and RP binding")
    func tokenRules() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential()
        let mcOnly = try client.token(permissions: PermissionBit.makeCredential, rpId: Fixture.rpID)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: mcOnly)).status
                == .pinAuthInvalid)
        let otherRP = try client.token(permissions: PermissionBit.getAssertion, rpId: Fixture.otherRpID)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: otherRP)).status
                == .pinAuthInvalid)
        let good = try client.token(permissions: PermissionBit.getAssertion, rpId: Fixture.rpID)
        #expect(try client.assert(allowList: [made.id], token: good).authData.uv)
    }

    @Test("a deleted discoverable credential's ID in an allowList → NO_CREDENTIALS")
    func deletedCredential() throws {
        let client = try TestClient()
        try client.setPIN()
        let made = try client.makeCredential(rk: true, token: try client.token())
        #expect(try client.assert(allowList: [made.id]).credentialId == made.id)
        let token = try client.token(permissions: PermissionBit.credentialManagement)
        let delete = client.credentialManagement(0x06, parameters: [.int(2): TestClient.descriptor(made.id)], token: token)
        #expect(delete.status == .ok)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .noCredentials)
        #expect(client.getAssertion(TestClient.getAssertionRequest()).status == .noCredentials)
    }
}
