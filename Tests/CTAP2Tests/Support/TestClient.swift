import CBOR
import ArculusCard
import CTAP2
import CardTestSupport
import CardCrypto
import Foundation
import Testing
import FIDOWire
import TestSupport

/// One response: status byte + CBOR.
struct Reply: CustomStringConvertible {
    let bytes: [UInt8]

    var status: CTAPStatus? { bytes.first.flatMap(CTAPStatus.init(rawValue:)) }

    /// The decoded body of a successful response (an empty body is an empty map).
    func body() throws -> CBORMap {
        guard status == .ok else { throw TestFailure("expected CTAP2_OK, got \(description)") }
        guard bytes.count > 1 else { return CBORMap() }
        guard let map = try CBORDecoder.decode(Array(bytes.dropFirst())).mapValue else {
            throw TestFailure("response body is not a map")
        }
        return map
    }

    var description: String {
        guard let first = bytes.first else { return "(empty response)" }
        return status?.name ?? String(format: "unknown status 0x%02x", first)
    }
}

/// Host-side client: builds CTAP2 requests with integer keys and runs the PIN protocols from the
/// platform side.
final class TestClient {
    let authenticator: AuthenticatorUnderTest

    init(_ authenticator: AuthenticatorUnderTest) {
        self.authenticator = authenticator
    }

    /// A fresh card with a throw-away attestation identity.
    convenience init(profile: CardProfile = .arculusFIDO21, storage: CardStorage = InMemoryStorage()) throws {
        self.init(try makeAuthenticator(profile: profile, storage: storage))
    }

    // MARK: - Transport

    func send(_ command: UInt8, _ parameters: CBORMap? = nil) -> Reply {
        var request = [command]
        if let parameters { request += CBOREncoder.encode(.map(parameters)) }
        return Reply(bytes: authenticator.process(request))
    }

    func sendRaw(_ request: [UInt8]) -> Reply {
        Reply(bytes: authenticator.process(request))
    }

    func getInfo() throws -> CBORMap {
        try send(CTAPByte.getInfo).body()
    }

    func powerCycle() {
        authenticator.powerOff()
        authenticator.powerOn()
    }

    // MARK: - clientPIN

    func clientPIN(_ parameters: CBORMap) -> Reply {
        send(CTAPByte.clientPIN, parameters)
    }

    /// getKeyAgreement, then `encapsulate` on the platform side.
    func session(_ pinProtocol: PlatformPIN) throws -> PlatformSession {
        let body = try clientPIN([.int(1): .int(pinProtocol.rawValue), .int(2): .int(2)]).body()
        guard let key = body[int: 1] else { throw TestFailure("getKeyAgreement answered without keyAgreement") }
        return try pinProtocol.encapsulate(key)
    }

    func pinRetries() throws -> Int {
        let body = try clientPIN([.int(2): .int(1)]).body()
        guard let retries = body[int: 3]?.intValue else { throw TestFailure("getPINRetries without pinRetries") }
        return retries
    }

    static func setPINRequest(_ session: PlatformSession, newPINBlock: [UInt8]) throws -> CBORMap {
        let newPinEnc = try session.encrypt(newPINBlock)
        return [
            .int(1): .int(session.pinProtocol.rawValue), .int(2): .int(3), .int(3): session.platformKey,
            .int(4): .bytes(session.authenticate(newPinEnc)), .int(5): .bytes(newPinEnc),
        ]
    }

    static func changePINRequest(_ session: PlatformSession, currentPIN: String, newPIN: String) throws -> CBORMap {
        let newPinEnc = try session.encrypt(paddedPIN(newPIN))
        let pinHashEnc = try session.encrypt(pinHash(currentPIN))
        return [
            .int(1): .int(session.pinProtocol.rawValue), .int(2): .int(4), .int(3): session.platformKey,
            .int(4): .bytes(session.authenticate(newPinEnc + pinHashEnc)), .int(5): .bytes(newPinEnc),
            .int(6): .bytes(pinHashEnc),
        ]
    }

    /// getPinToken (0x05), or getPinUvAuthTokenUsingPinWithPermissions (0x09) when `permissions`
    /// is given.
    static func tokenRequest(_ session: PlatformSession, pin: String, permissions: UInt64? = nil,
                             rpId: String? = nil) throws -> CBORMap {
        var request: CBORMap = [
            .int(1): .int(session.pinProtocol.rawValue), .int(2): .int(permissions == nil ? 5 : 9),
            .int(3): session.platformKey, .int(6): .bytes(try session.encrypt(pinHash(pin))),
        ]
        if let permissions { request[int: 9] = .unsigned(permissions) }
        if let rpId { request[int: 0x0A] = .text(rpId) }
        return request
    }

    @discardableResult
    func setPIN(_ pin: String = Fixture.shortPIN, _ pinProtocol: PlatformPIN = .one) throws -> Reply {
        clientPIN(try Self.setPINRequest(try session(pinProtocol), newPINBlock: paddedPIN(pin)))
    }

    func changePIN(from currentPIN: String, to newPIN: String, _ pinProtocol: PlatformPIN = .one) throws -> Reply {
        clientPIN(try Self.changePINRequest(try session(pinProtocol), currentPIN: currentPIN, newPIN: newPIN))
    }

    /// Runs a token request with a fresh key agreement and decrypts the token.
    func token(_ pin: String = Fixture.shortPIN, _ pinProtocol: PlatformPIN = .one, permissions: UInt64? = nil,
               rpId: String? = nil) throws -> PlatformToken {
        let session = try session(pinProtocol)
        let body = try clientPIN(try Self.tokenRequest(session, pin: pin, permissions: permissions, rpId: rpId)).body()
        guard let encrypted = body[int: 2]?.bytesValue else { throw TestFailure("no pinUvAuthToken in response") }
        let token = try session.decrypt(encrypted)
        guard token.count == 32 else { throw TestFailure("pinUvAuthToken is \(token.count) bytes, not 32") }
        return PlatformToken(pinProtocol: pinProtocol, value: token)
    }

    /// The token request's reply, for negative tests.
    func tokenReply(_ pin: String, _ pinProtocol: PlatformPIN = .one, permissions: UInt64? = nil,
                    rpId: String? = nil) throws -> Reply {
        clientPIN(try Self.tokenRequest(try session(pinProtocol), pin: pin, permissions: permissions, rpId: rpId))
    }

    // MARK: - makeCredential / getAssertion

    static func makeCredentialRequest(
        clientDataHash: [UInt8] = Fixture.clientDataHash(), rpId: String = Fixture.rpID, rpName: String? = Fixture.rpName,
        userId: [UInt8] = Fixture.userID, userName: String? = Fixture.userName, displayName: String? = Fixture.userDisplayName,
        algorithms: [Int] = [-7], excludeList: [[UInt8]]? = nil, extensions: CBORMap? = nil,
        options: CBORMap? = nil, token: PlatformToken? = nil
    ) -> CBORMap {
        var rp: CBORMap = ["id": .text(rpId)]
        if let rpName { rp["name"] = .text(rpName) }
        var user: CBORMap = ["id": .bytes(userId)]
        if let userName { user["name"] = .text(userName) }
        if let displayName { user["displayName"] = .text(displayName) }
        var request: CBORMap = [
            .int(1): .bytes(clientDataHash), .int(2): .map(rp), .int(3): .map(user),
            .int(4): .array(algorithms.map { .map(["alg": .int($0), "type": "public-key"]) }),
        ]
        if let excludeList { request[int: 5] = .array(excludeList.map { descriptor($0) }) }
        if let extensions { request[int: 6] = .map(extensions) }
        if let options { request[int: 7] = .map(options) }
        if let token {
            request[int: 8] = .bytes(token.authenticate(clientDataHash))
            request[int: 9] = .int(token.pinProtocol.rawValue)
        }
        return request
    }

    static func getAssertionRequest(
        rpId: String = Fixture.rpID, clientDataHash: [UInt8] = Fixture.clientDataHash("assertion"),
        allowList: [[UInt8]]? = nil, extensions: CBORMap? = nil, options: CBORMap? = nil, token: PlatformToken? = nil
    ) -> CBORMap {
        var request: CBORMap = [.int(1): .text(rpId), .int(2): .bytes(clientDataHash)]
        if let allowList { request[int: 3] = .array(allowList.map { descriptor($0) }) }
        if let extensions { request[int: 4] = .map(extensions) }
        if let options { request[int: 5] = .map(options) }
        if let token {
            request[int: 6] = .bytes(token.authenticate(clientDataHash))
            request[int: 7] = .int(token.pinProtocol.rawValue)
        }
        return request
    }

    static func descriptor(_ id: [UInt8]) -> CBORValue {
        .map(["id": .bytes(id), "type": "public-key"])
    }

    func makeCredential(_ request: CBORMap) -> Reply { send(CTAPByte.makeCredential, request) }
    func getAssertion(_ request: CBORMap) -> Reply { send(CTAPByte.getAssertion, request) }

    /// A successful makeCredential, parsed.
    func makeCredential(rpId: String = Fixture.rpID, userId: [UInt8] = Fixture.userID, userName: String? = Fixture.userName,
                        displayName: String? = Fixture.userDisplayName, rk: Bool = false, extensions: CBORMap? = nil,
                        token: PlatformToken? = nil,
                        clientDataHash: [UInt8] = Fixture.clientDataHash()) throws -> MadeCredential {
        let request = Self.makeCredentialRequest(
            clientDataHash: clientDataHash, rpId: rpId, userId: userId, userName: userName, displayName: displayName,
            extensions: extensions, options: rk ? ["rk": true] : nil, token: token)
        return try MadeCredential(try makeCredential(request).body(), clientDataHash: clientDataHash)
    }

    /// A successful getAssertion, parsed.
    func assert(rpId: String = Fixture.rpID, allowList: [[UInt8]]? = nil, extensions: CBORMap? = nil,
                options: CBORMap? = nil, token: PlatformToken? = nil,
                clientDataHash: [UInt8] = Fixture.clientDataHash("assertion")) throws -> Assertion {
        let request = Self.getAssertionRequest(rpId: rpId, clientDataHash: clientDataHash, allowList: allowList,
                                               extensions: extensions, options: options, token: token)
        return try Assertion(try getAssertion(request).body(), clientDataHash: clientDataHash)
    }

    func getNextAssertion(clientDataHash: [UInt8] = Fixture.clientDataHash("assertion")) throws -> Assertion {
        try Assertion(try send(CTAPByte.getNextAssertion).body(), clientDataHash: clientDataHash)
    }

    // MARK: - credentialManagement

    /// A credentialManagement request authenticated with `token` over subCommand ‖ CBOR(params).
    static func credentialManagementRequest(_ subCommand: UInt64, parameters: CBORMap? = nil,
                                            token: PlatformToken?) -> CBORMap {
        var request: CBORMap = [.int(1): .unsigned(subCommand)]
        if let parameters { request[int: 2] = .map(parameters) }
        if let token {
            var message: [UInt8] = [UInt8(subCommand)]
            if let parameters { message += CBOREncoder.encode(.map(parameters)) }
            request[int: 3] = .int(token.pinProtocol.rawValue)
            request[int: 4] = .bytes(token.authenticate(message))
        }
        return request
    }

    func credentialManagement(_ subCommand: UInt64, parameters: CBORMap? = nil, token: PlatformToken?) -> Reply {
        send(CTAPByte.credentialManagement, Self.credentialManagementRequest(subCommand, parameters: parameters, token: token))
    }
}

// MARK: - Authenticator and attestation for tests

/// A throw-away attestation identity: a fresh self-signed root, and a batch certificate for
/// `aaguid` issued by the production `AttestationIdentity.issueBatchCertificate`.
func makeTestAttestation(aaguid: [UInt8]) throws -> AttestationIdentity {
    let rootKey = try P256PrivateKey()
    let rootSubject = [("C", "US"), ("O", "CTAP2Tests"), ("CN", "CTAP2Tests Root CA")]
    let now = Date()
    let root = try X509Certificate.make(
        subject: rootSubject, issuer: rootSubject, serialNumber: [0x01],
        notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(365 * 86_400),
        subjectPublicKey: rootKey.publicKey, issuerPrivateKey: rootKey, isCA: true)
    let batchKey = try P256PrivateKey()
    let certificate = try AttestationIdentity.issueBatchCertificate(
        aaguid: aaguid, model: "CTAP2Tests card", batchKey: batchKey, root: root, rootKey: rootKey)
    return AttestationIdentity(certificate: certificate, privateKey: batchKey, rootCertificate: root)
}

/// An authenticator for `profile`; one with enterprise attestation gets the card's enterprise
/// identity (the one a VirtualCard uses), so that enableEnterpriseAttestation has a key to sign with.
func makeAuthenticator(profile: CardProfile = .arculusFIDO21, storage: CardStorage = InMemoryStorage()) throws -> AuthenticatorUnderTest {
    try AuthenticatorUnderTest(profile: profile, storage: storage, attestation: try makeTestAttestation(aaguid: try profile.aaguidBytes),
                               enterpriseAttestation: profile.enterpriseAttestation ? try AttestationIdentity.enterprise(for: profile) : nil)
}

/// The AAGUID's 16 bytes from its canonical text, parsed here rather than by the profile.
func aaguidBytes(_ text: String) throws -> [UInt8] {
    guard let bytes = TestHex.bytes(text.replacingOccurrences(of: "-", with: "")), bytes.count == 16 else {
        throw TestFailure("AAGUID \(text) is not 32 hex digits")
    }
    return bytes
}

extension AuthenticatorUnderTest {
    /// Replaces the clock with `clock` and powers the card up at its current time.
    func use(_ clock: ManualCardClock) {
        self.clock = clock.read
        powerOff()
        powerOn()
    }
}
