import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// A parsed U2F registration response (FIDO U2F Raw Message Formats §4.3).
struct U2FRegistration {
    let publicKey: [UInt8]
    let keyHandle: [UInt8]
    let certificateDER: [UInt8]
    let signature: [UInt8]

    init(_ response: [UInt8]) throws {
        guard response.count > 67, response[0] == 0x05 else { throw TestFailure("no reserved byte 0x05") }
        publicKey = Array(response[1..<66])
        let handleLength = Int(response[66])
        let handleEnd = 67 + handleLength
        guard response.count > handleEnd else { throw TestFailure("key handle truncated") }
        keyHandle = Array(response[67..<handleEnd])
        let certificateLength = try derElementLength(response[handleEnd...])
        guard response.count > handleEnd + certificateLength else { throw TestFailure("certificate truncated") }
        certificateDER = Array(response[handleEnd..<handleEnd + certificateLength])
        signature = Array(response[(handleEnd + certificateLength)...])
    }
}

@Suite("U2F (CTAP1) on the same card")
struct U2FTests {
    static let application = SHA256.hash(Array("https://u2f.example".utf8))
    static let challenge = SHA256.hash(Array("challenge".utf8))

    static func success(_ result: U2FResult) throws -> [UInt8] {
        guard case .success(let data) = result else { throw TestFailure("U2F answered \(result)") }
        return data
    }

    static func register(_ authenticator: AuthenticatorUnderTest, application: [UInt8] = application) throws -> U2FRegistration {
        try U2FRegistration(try success(authenticator.u2fRegister(challenge: challenge, application: application)))
    }

    @Test("register: layout, certificate, signature over 00 ‖ app ‖ chal ‖ kh ‖ pubkey")
    func register() throws {
        let authenticator = try makeAuthenticator()
        let registration = try Self.register(authenticator)
        #expect(registration.publicKey.count == 65)
        #expect(registration.publicKey.first == 0x04)
        let credentialKey = try P256PublicKey(x962: registration.publicKey)
        #expect(!registration.keyHandle.isEmpty)
        let certificate = try X509Certificate(der: registration.certificateDER)
        #expect(certificate == authenticator.attestation.certificate)
        let signed = [0x00] + Self.application + Self.challenge + registration.keyHandle + registration.publicKey
        #expect(try certificate.publicKey.isValidSignature(registration.signature, for: signed))
        #expect(!credentialKey.isValidSignature(registration.signature, for: signed))
    }

    @Test("authenticate 0x03: user presence flag, counter and signature over app ‖ flags ‖ counter ‖ chal")
    func authenticate() throws {
        let authenticator = try makeAuthenticator()
        let registration = try Self.register(authenticator)
        let key = try P256PublicKey(x962: registration.publicKey)
        let response = try Self.success(authenticator.u2fAuthenticate(
            control: 0x03, challenge: Self.challenge, application: Self.application, keyHandle: registration.keyHandle))
        #expect(response[0] == 0x01, "user presence verified")
        let counter = response[1..<5].reduce(0) { $0 << 8 | UInt32($1) }
        #expect(counter >= 1)
        let signature = Array(response[5...])
        #expect(key.isValidSignature(signature, for: Self.application + Array(response[0..<5]) + Self.challenge))
        #expect(!key.isValidSignature(signature, for: Self.application + Array(response[0..<5]) + Self.application))
    }

    @Test("authenticate 0x08 signs without user presence (flag 0)")
    func dontEnforce() throws {
        let authenticator = try makeAuthenticator()
        let registration = try Self.register(authenticator)
        authenticator.userPresence = { false }
        let response = try Self.success(authenticator.u2fAuthenticate(
            control: 0x08, challenge: Self.challenge, application: Self.application, keyHandle: registration.keyHandle))
        #expect(response[0] == 0x00)
        #expect(try P256PublicKey(x962: registration.publicKey)
            .isValidSignature(Array(response[5...]), for: Self.application + Array(response[0..<5]) + Self.challenge))
    }

    @Test("check-only 0x07 with a valid key handle → conditions not satisfied; with a foreign one → wrong data")
    func checkOnly() throws {
        let authenticator = try makeAuthenticator()
        let registration = try Self.register(authenticator)
        #expect(authenticator.u2fAuthenticate(control: 0x07, challenge: Self.challenge, application: Self.application,
                                              keyHandle: registration.keyHandle) == .conditionsNotSatisfied)
        #expect(authenticator.u2fAuthenticate(control: 0x07, challenge: Self.challenge, application: Self.application,
                                              keyHandle: [UInt8](repeating: 7, count: 81)) == .wrongData)
        #expect(authenticator.state.signatureCounter == 0)
    }

    @Test("a key handle presented for another application → wrong data")
    func wrongApplication() throws {
        let authenticator = try makeAuthenticator()
        let registration = try Self.register(authenticator)
        let other = SHA256.hash(Array("https://other.example".utf8))
        #expect(authenticator.u2fAuthenticate(control: 0x03, challenge: Self.challenge, application: other,
                                              keyHandle: registration.keyHandle) == .wrongData)
    }

    @Test("declined user presence → conditions not satisfied")
    func presenceDeclined() throws {
        let authenticator = try makeAuthenticator()
        authenticator.userPresence = { false }
        #expect(authenticator.u2fRegister(challenge: Self.challenge, application: Self.application) == .conditionsNotSatisfied)
    }

    @Test("the counter is shared with CTAP2: a getAssertion in between increases it")
    func sharedCounter() throws {
        let client = try TestClient()
        let authenticator = client.authenticator
        let registration = try Self.register(authenticator)
        func u2fCounter() throws -> UInt32 {
            let response = try Self.success(authenticator.u2fAuthenticate(
                control: 0x03, challenge: Self.challenge, application: Self.application, keyHandle: registration.keyHandle))
            return response[1..<5].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let first = try u2fCounter()
        let made = try client.makeCredential()
        #expect(made.authData.counter > first)
        let assertion = try client.assert(allowList: [made.id])
        #expect(assertion.authData.counter > made.authData.counter)
        #expect(try u2fCounter() > assertion.authData.counter)
    }

    @Test("a CTAP2 non-discoverable credential works as a U2F key handle for SHA-256(rpId)")
    func ctap2CredentialAsKeyHandle() throws {
        let client = try TestClient()
        let made = try client.makeCredential()
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        let response = try Self.success(client.authenticator.u2fAuthenticate(
            control: 0x03, challenge: Self.challenge, application: application, keyHandle: made.id))
        #expect(made.publicKey.isValidSignature(Array(response[5...]),
                                                for: application + Array(response[0..<5]) + Self.challenge))
    }

    @Test("a U2F registration works with CTAP2 getAssertion when rpId hashes to the application")
    func keyHandleAsCTAP2Credential() throws {
        let client = try TestClient()
        let application = SHA256.hash(Array(Fixture.rpID.utf8))
        let registration = try Self.register(client.authenticator, application: application)
        let assertion = try client.assert(allowList: [registration.keyHandle])
        #expect(assertion.verifies(with: try P256PublicKey(x962: registration.publicKey)))
    }

    @Test("malformed challenge or application → wrong data")
    func malformed() throws {
        let authenticator = try makeAuthenticator()
        #expect(authenticator.u2fRegister(challenge: [1, 2, 3], application: Self.application) == .wrongData)
        #expect(authenticator.u2fRegister(challenge: Self.challenge, application: []) == .wrongData)
    }
}
