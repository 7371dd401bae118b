import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Review defect 10: getAssertion processes its extensions once user presence was given (CTAP 2.1
/// §6.2.2 step 9 collects presence, step 10 processes extensions; hmac-secret's own checks,
/// §12.5, are part of that processing). With presence declined, a malformed hmac-secret input is
/// never looked at: OPERATION_DENIED.
@Suite("Defect 10: hmac-secret is processed after user presence")
struct Defect10HMACSecretAfterPresenceTests {
    /// Malformed inputs, each with the status it gets once presence is given.
    static let malformed: [(name: String, status: CTAPStatus, edit: @Sendable (inout CBORMap, PlatformSession) -> Void)] = [
        ("no saltAuth", .missingParameter, { input, _ in input[int: 3] = nil }),
        ("no keyAgreement", .missingParameter, { input, _ in input[int: 1] = nil }),
        ("saltAuth over other bytes", .pinAuthInvalid, { input, session in input[int: 3] = .bytes(session.authenticate([1, 2, 3])) }),
        ("salt of 48 bytes", .invalidParameter, { input, session in
            let saltEnc = (try? session.encrypt([UInt8](repeating: 7, count: 48))) ?? []
            input[int: 2] = .bytes(saltEnc)
            input[int: 3] = .bytes(session.authenticate(saltEnc))
        }),
    ]

    @Test("CTAP 2.1 §6.2.2 steps 9–10, §12.5: presence declined → OPERATION_DENIED whatever is wrong with the hmac-secret input; given → the input's own error",
          arguments: PlatformPIN.allCases, malformed.indices)
    func presenceFirst(pinProtocol: PlatformPIN, index: Int) throws {
        let (name, status, edit) = Self.malformed[index]
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let session = try client.session(pinProtocol)
        guard case .map(var input) = try HMACSecretTests.input(session, salts: HMACSecretTests.salt1) else {
            throw TestFailure("hmac-secret input is not a map")
        }
        edit(&input, session)
        let request = TestClient.getAssertionRequest(allowList: [made.id], extensions: ["hmac-secret": .map(input)])
        client.authenticator.userPresence = { false }
        #expect(client.getAssertion(request).status == .operationDenied, "\(name), presence declined")
        client.authenticator.userPresence = { true }
        #expect(client.getAssertion(request).status == status, "\(name), presence given")
    }

    @Test("CTAP 2.1 §6.2.1 (the request's members, read before step 1): an hmac-secret input that is not a map → CBOR_UNEXPECTED_TYPE, presence declined or not (this card type-checks extension inputs as it reads the request)")
    func typeCheckedWhenRead() throws {
        let client = try TestClient()
        let made = try client.makeCredential(extensions: ["hmac-secret": true])
        let request = TestClient.getAssertionRequest(allowList: [made.id], extensions: ["hmac-secret": .bytes([1, 2, 3])])
        client.authenticator.userPresence = { false }
        #expect(client.getAssertion(request).status == .cborUnexpectedType)
        client.authenticator.userPresence = { true }
        #expect(client.getAssertion(request).status == .cborUnexpectedType)
    }
}
