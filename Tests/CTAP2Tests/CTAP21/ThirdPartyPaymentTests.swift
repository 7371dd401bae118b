import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// thirdPartyPayment (CTAP 2.2 §12.9): a credential made with it is marked as usable for payment
/// by a third party; getAssertion with the input tells whether the credential is; credential
/// management shows the mark (0x0C).
@Suite("thirdPartyPayment (CTAP 2.2)")
struct ThirdPartyPaymentTests {
    @Test("CTAP 2.2 §12.9 makeCredential: thirdPartyPayment: true → output true; getAssertion with the input → true for it, false for a credential made without",
          arguments: [false, true])
    func markAndRead(rk: Bool) throws {
        let client = try TestClient(profile: .reference)
        let payment = try client.makeCredential(userId: [1], rk: rk, extensions: ["thirdPartyPayment": true])
        #expect(payment.authData.extensions?[text: "thirdPartyPayment"] == true)
        let plain = try client.makeCredential(userId: [2], rk: rk)
        #expect(plain.authData.extensions == nil)

        for (made, expected) in [(payment, true), (plain, false)] {
            let assertion = try client.assert(allowList: [made.id], extensions: ["thirdPartyPayment": true])
            #expect(assertion.authData.extensions?[text: "thirdPartyPayment"] == .bool(expected))
            #expect(assertion.verifies(with: made.publicKey))
            #expect(try client.assert(allowList: [made.id]).authData.extensions == nil, "no input, no output")
        }
    }

    @Test("CTAP 2.2 §12.9 with §6.8.4: enumerateCredentials shows thirdPartyPayment (0x0C) for each discoverable credential")
    func credentialManagement() throws {
        let client = try TestClient(profile: .reference)
        let payment = try client.makeCredential(userId: [1], rk: true, extensions: ["thirdPartyPayment": true])
        let plain = try client.makeCredential(userId: [2], rk: true)
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let first = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                    token: token).body()
        let second = try client.credentialManagement(CM.enumerateCredentialsGetNextCredential, token: nil).body()
        var marks: [[UInt8]: CBORValue?] = [:]
        for entry in [first, second] {
            marks[try #require(entry[int: 7]?.mapValue?[text: "id"]?.bytesValue)] = entry[int: 0x0C]
        }
        #expect(marks[payment.id] == .some(true))
        #expect(marks[plain.id] == .some(false))
    }

    @Test("CTAP 2.2 §12.9: a card without thirdPartyPayment ignores the input, and its credential management has no 0x0C")
    func notOffered() throws {
        let client = try TestClient()
        let made = try client.makeCredential(rk: true, extensions: ["thirdPartyPayment": true])
        #expect(made.authData.extensions == nil)
        #expect(try client.assert(extensions: ["thirdPartyPayment": true]).authData.extensions == nil)
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, .two, permissions: PermissionBit.credentialManagement)
        let entry = try client.credentialManagement(CM.enumerateCredentialsBegin,
                                                    parameters: CredentialManagementTests.rpIdHashParameters(Fixture.rpID),
                                                    token: token).body()
        #expect(entry[int: 0x0C] == nil)
    }

    @Test("CTAP 2.2 §12.9: an input that is not a boolean → CBOR_UNEXPECTED_TYPE")
    func wrongType() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(extensions: ["thirdPartyPayment": 1])).status
                == .cborUnexpectedType)
    }
}
