import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

@Suite("State control: PIN, retries, counter and credentials set directly")
struct StateControlTests {
    @Test("setPIN: the PIN works for getPinToken, a wrong one is PIN_INVALID; retries back to 8")
    func setPIN() throws {
        let card = try VirtualCard()
        try card.setPINRetries(5)
        try card.setPIN("123456")
        #expect(card.pinState.values == (true, 8, 0))
        #expect(card.authenticator.pinLength == 6)
        _ = try PlatformPINOne.token("123456", on: card)
        let wrong = #expect(throws: TestFailure.self) { try PlatformPINOne.token("654321", on: card) }
        #expect(wrong?.description == "expected CTAP2_OK, got CTAP2_ERR_PIN_INVALID")
        #expect(card.pinState.retries == 7)
        // With a PIN set, a discoverable makeCredential without a token needs one.
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: true)).status == .puatRequired)
    }

    @Test("setPIN refuses what the card's PIN policy refuses, saying why", arguments: [
        ("123", "it has 3 code points; the card's minimum is 4"),
        (String(repeating: "9", count: 64), "it is 64 bytes of UTF-8; at most 63 fit"),
        ("12\u{0}45", "it contains a NUL character"),
    ])
    func pinPolicy(pin: String, reason: String) throws {
        let card = try VirtualCard()
        #expect(throws: StateControlError.pinPolicy(reason)) { try card.setPIN(pin) }
        #expect(card.pinState.isSet == false)
    }

    @Test("setPIN counts code points, not bytes: four emoji are a 4-character PIN")
    func codePoints() throws {
        let card = try VirtualCard()
        try card.setPIN("😀😀😀😀")
        #expect(card.authenticator.pinLength == 4)
        _ = try PlatformPINOne.token("😀😀😀😀", on: card)
    }

    @Test("setPINRetries: getPINRetries reports it; 0 blocks the PIN (PIN_BLOCKED); 9 is refused")
    func retries() throws {
        let card = try VirtualCard()
        try card.setPIN("123456")
        try card.setPINRetries(3)
        let body = try card.send(.clientPIN, [.int(1): 1, .int(2): 1]).okBody()
        #expect(body[int: 3] == 3)
        try card.setPINRetries(0)
        let session = try PlatformPINOne(card: card)
        let pinHashEnc = try session.encrypt(pinHash("123456"))
        let blocked = card.send(.clientPIN, [.int(1): 1, .int(2): 5, .int(3): session.platformKey, .int(6): .bytes(pinHashEnc)])
        #expect(blocked.status == .pinBlocked)
        #expect(throws: StateControlError.retriesOutOfRange(9)) { try card.setPINRetries(9) }
        #expect(throws: StateControlError.retriesOutOfRange(-1)) { try card.setPINRetries(-1) }
    }

    @Test("setSignatureCounter: the next assertion reports the counter plus one")
    func counter() throws {
        let card = try VirtualCard()
        let record = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        try card.setSignatureCounter(41)
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(assertion.counter == 42)
        #expect(assertion.verifies(with: record.publicKey))
        #expect(card.pinState.signatureCounter == 42)
    }

    @Test("a pre-loaded discoverable credential answers a getAssertion without allow list")
    func discoverable() throws {
        let card = try VirtualCard()
        let alice = try card.addCredential(rpId: "example.com", user: CredentialUser("alice", displayName: "Alice"))
        #expect(alice.discoverable)
        #expect(card.credentials.map(\.id) == [alice.id])
        #expect(card.credentialRecords == [alice])
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(assertion.credentialId == alice.id)
        #expect(assertion.userId == Array("alice".utf8))
        #expect(assertion.verifies(with: alice.publicKey))
        #expect(assertion.flags & 0x01 == 0x01)
        #expect(alice.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(CredentialPublicKey(try P256PublicKey(derSubjectPublicKeyInfo: alice.publicKey.derSubjectPublicKeyInfo)) == alice.publicKey)
    }

    @Test("a pre-loaded non-discoverable credential is a minted ID: nothing stored, the ID asserts with the given key")
    func nonDiscoverable() throws {
        let card = try VirtualCard()
        let key = try P256PrivateKey()
        let bob = try card.addCredential(rpId: "example.com", user: CredentialUser("bob"), discoverable: false, privateKey: key)
        #expect(!bob.discoverable)
        #expect(bob.publicKey == CredentialPublicKey(key.publicKey))
        #expect(bob.id.count == 81)
        #expect(card.credentials.isEmpty)
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion(allow: bob.id)))
        #expect(assertion.credentialId == bob.id)
        #expect(assertion.verifies(with: key.publicKey))
        // Bound to its RP: another RP, or no allow list, finds nothing.
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion(rpId: "other.example", allow: bob.id)).status == .noCredentials)
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).status == .noCredentials)
    }

    @Test("a pre-loaded credential with a given key also works for U2F AUTHENTICATE on the card front")
    func u2f() throws {
        let card = try VirtualCard()
        let application = SHA256.hash(Array("https://u2f.example".utf8))
        // U2F key handles are bound to the application parameter, which is the "RP ID hash".
        let record = try card.addCredential(CredentialSeed(rpId: "https://u2f.example", discoverable: false))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let challenge = [UInt8](repeating: 7, count: 32)
        let reply = card.exchangeWhole([0x00, 0x02, 0x03, 0x00, UInt8(65 + record.id.count)] + challenge + application
                                       + [UInt8(record.id.count)] + record.id + [0x00])
        #expect(reply.sw == 0x9000)
        let signed = application + Array(reply.data[0..<5]) + challenge
        #expect(record.publicKey.isValidSignature(Array(reply.data[5...]), for: signed))
    }

    @Test("a discoverable credential for the same RP and user handle replaces the old one")
    func replaces() throws {
        let card = try VirtualCard()
        let first = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        let second = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        #expect(card.credentialRecords == [second])
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion(allow: first.id)).status == .noCredentials)
    }

    @Test("the store's capacity holds: one more is KEY_STORE_FULL")
    func capacity() throws {
        var profile = CardProfile.default
        profile.residentKeyCapacity = 2
        let card = try VirtualCard(profile: profile)
        try card.addCredential(rpId: "a.example", user: CredentialUser("1"))
        try card.addCredential(rpId: "a.example", user: CredentialUser("2"))
        #expect(throws: StateControlError.keyStoreFull(capacity: 2)) {
            try card.addCredential(rpId: "a.example", user: CredentialUser("3"))
        }
        try card.addCredential(rpId: "a.example", user: CredentialUser("2"))  // a replacement fits
        #expect(card.credentials.count == 2)
    }

    @Test("credentials the card could not make are refused, saying why", arguments: [
        (CredentialSeed(rpId: "", user: CredentialUser("a")), "the RP ID is empty"),
        (CredentialSeed(rpId: "example.com"), "a discoverable credential needs a user handle"),
        (CredentialSeed(rpId: "example.com", user: CredentialUser(id: [UInt8](repeating: 1, count: 65))),
         "the user handle is 65 bytes; at most 64 are allowed"),
        (CredentialSeed(rpId: "example.com", user: CredentialUser("a"), credProtect: 4), "credProtect must be 1, 2 or 3, not 4"),
        (CredentialSeed(rpId: "example.com", user: CredentialUser("a"), credProtect: 0), "credProtect must be 1, 2 or 3, not 0"),
    ])
    func refused(seed: CredentialSeed, reason: String) throws {
        let card = try VirtualCard()
        #expect(throws: StateControlError.invalidCredential(reason)) { try card.addCredential(seed) }
        #expect(card.credentials.isEmpty)
    }

    @Test("a PEM that is no private key is refused")
    func badKey() {
        var seed = CredentialSeed(rpId: "example.com", user: CredentialUser("a"))
        #expect(throws: StateControlError.invalidCredential("the key is not an unencrypted private key in PEM (PKCS#8, or SEC 1 for P-256)")) {
            try seed.setPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        #expect(seed.privateKey == nil)
    }

    @Test("removeCredential deletes a discoverable credential; an unknown ID is refused")
    func remove() throws {
        let card = try VirtualCard()
        let alice = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        try card.removeCredential(id: alice.id)
        #expect(card.credentials.isEmpty)
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).status == .noCredentials)
        #expect(throws: StateControlError.noSuchCredential(alice.id)) { try card.removeCredential(id: alice.id) }
        let minted = try card.addCredential(rpId: "example.com", user: CredentialUser("bob"), discoverable: false)
        #expect(throws: StateControlError.noSuchCredential(minted.id)) { try card.removeCredential(id: minted.id) }
    }

    @Test("credentialRecords gives the public key of a credential made through CTAP")
    func recordsOfMadeCredentials() throws {
        let card = try VirtualCard()
        let made = try credential(from: try card.send(.makeCredential, makeCredentialParameters(userId: [9], rk: true)).okBody())
        #expect(card.credentialRecords.map(\.publicKey) == [CredentialPublicKey(made.key)])
        #expect(card.credentialRecords.map(\.id) == [made.id])
    }

    @Test("everything set directly is in the image: a reopened card has it")
    func durable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        var records: [CredentialRecord] = []
        var minted: CredentialRecord?
        do {
            let card = try VirtualCard(imageAt: path)
            try card.setPIN("123456")
            try card.setPINRetries(4)
            try card.setSignatureCounter(1000)
            records.append(try card.addCredential(rpId: "example.com", user: CredentialUser("alice")))
            records.append(try card.addCredential(rpId: "example.org", user: CredentialUser("carol")))
            try card.removeCredential(id: records.removeFirst().id)
            minted = try card.addCredential(rpId: "example.com", user: CredentialUser("bob"), discoverable: false)
        }
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.pinState.values == (true, 4, 1000))
        #expect(reopened.credentialRecords == records)
        let minted_ = try #require(minted)
        let assertion = try Assertion(reopened.send(.getAssertion, ControlAPDU.getAssertion(allow: minted_.id)))
        #expect(assertion.verifies(with: minted_.publicKey))
        #expect(assertion.counter == 1001)
        _ = try PlatformPINOne.token("123456", on: reopened)
    }

    @Test("a seeded card mints the same credentials every time")
    func seeded() throws {
        func mint() throws -> CredentialRecord {
            let card = try VirtualCard(entropy: .seeded([1, 2, 3]))
            return try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        }
        #expect(try mint() == (try mint()))
    }
}
