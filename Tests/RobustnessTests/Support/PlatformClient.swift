import CBOR
import CardCrypto
import TestSupport

// The host side of CTAP 2.1 for the robustness tests and the fuzz harnesses (Tests/Fuzz/build.sh
// compiles this file into the ctap2 and card targets too, so it imports neither Testing nor the
// card modules). Its PIN/UV auth protocols are TestSupport's platform side (PlatformPIN), written
// from CTAP 2.1 §6.5.6/§6.5.7; it never calls the authenticator's own PIN code. Every random value
// is derived from a counter, so a run (and a fuzz input) is reproducible.

/// One CTAP2 response: status byte + CBOR body.
struct CTAPReply: CustomStringConvertible {
    let bytes: [UInt8]

    /// The status byte (CTAP 2.1 §8.2); 0xFF for an empty response (never valid).
    var status: UInt8 { bytes.first ?? 0xFF }
    var isOK: Bool { status == 0x00 }

    /// The body map of a response, or nil when absent or not a map.
    var map: CBORMap? {
        guard bytes.count > 1, let value = try? CBORDecoder.decode(Array(bytes.dropFirst())) else { return nil }
        return value.mapValue
    }

    var description: String { "status 0x" + String(status, radix: 16) + " (\(bytes.count) bytes)" }
}

/// A CTAP2 platform driving a card through a request → response function (the authenticator,
/// a VirtualCard, or APDUs through the card front).
final class PlatformClient {
    let send: ([UInt8]) -> [UInt8]
    private var counter: UInt64 = 0

    init(send: @escaping ([UInt8]) -> [UInt8]) {
        self.send = send
    }

    /// 32 bytes that differ on every call and are the same in every run.
    func nextBytes(_ count: Int = 32) -> [UInt8] {
        counter += 1
        var block = Array("platform".utf8)
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift))) }
        return Array(SHA256.hash(block).prefix(count))
    }

    // MARK: - Requests

    /// command byte + canonical CBOR of `parameters`.
    static func request(_ command: UInt8, _ parameters: CBORMap?) -> [UInt8] {
        [command] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
    }

    @discardableResult
    func call(_ command: UInt8, _ parameters: CBORMap? = nil) -> CTAPReply {
        CTAPReply(bytes: send(Self.request(command, parameters)))
    }

    // MARK: - PIN protocol

    /// getKeyAgreement, then ECDH with a fresh (counter-derived) platform key and the protocol's KDF.
    func session(protocol pinProtocol: Int) throws -> PlatformSession {
        let protocolValue = try Self.pinProtocol(pinProtocol)
        let reply = call(CTAPByte.clientPIN, [.int(1): .int(pinProtocol), .int(2): 2])
        guard reply.isOK, let key = reply.map?[int: 1] else { throw TestFailure("getKeyAgreement failed: \(reply)") }
        var scalar = nextBytes()
        scalar[0] &= 0x7F  // below the group order
        return try protocolValue.encapsulate(key, platformKey: try P256PrivateKey(rawScalar: scalar))
    }

    /// The protocol numbered `number` (1 or 2).
    static func pinProtocol(_ number: Int) throws -> PlatformPIN {
        guard let pinProtocol = PlatformPIN(rawValue: number) else { throw TestFailure("no PIN/UV auth protocol \(number)") }
        return pinProtocol
    }

    /// The setPIN request (subcommand 3) for `pin`, in a fresh session.
    func setPINRequest(_ pin: String, protocol pinProtocol: Int = 1) throws -> CBORMap {
        let session = try session(protocol: pinProtocol)
        let newPinEnc = try session.encrypt(paddedPIN(pin), iv: nextBytes(16))
        return [.int(1): .int(pinProtocol), .int(2): 3, .int(3): session.platformKey,
                .int(4): .bytes(session.authenticate(newPinEnc)), .int(5): .bytes(newPinEnc)]
    }

    @discardableResult
    func setPIN(_ pin: String, protocol pinProtocol: Int = 1) throws -> CTAPReply {
        call(CTAPByte.clientPIN, try setPINRequest(pin, protocol: pinProtocol))
    }

    /// The changePIN request (subcommand 4).
    func changePINRequest(from old: String, to new: String, protocol pinProtocol: Int = 1) throws -> CBORMap {
        let session = try session(protocol: pinProtocol)
        let pinHashEnc = try session.encrypt(pinHash(old), iv: nextBytes(16))
        let newPinEnc = try session.encrypt(paddedPIN(new), iv: nextBytes(16))
        return [.int(1): .int(pinProtocol), .int(2): 4, .int(3): session.platformKey,
                .int(4): .bytes(session.authenticate(newPinEnc + pinHashEnc)),
                .int(5): .bytes(newPinEnc), .int(6): .bytes(pinHashEnc)]
    }

    @discardableResult
    func changePIN(from old: String, to new: String, protocol pinProtocol: Int = 1) throws -> CTAPReply {
        call(CTAPByte.clientPIN, try changePINRequest(from: old, to: new, protocol: pinProtocol))
    }

    /// getPinToken (5) when `permissions` is nil, else getPinUvAuthTokenUsingPinWithPermissions (9).
    /// Like a platform, it names the RP of an mc or ga token: `rpId`, else example.com (a test
    /// that wants the member absent removes key 10).
    func tokenRequest(_ pin: String, protocol pinProtocol: Int = 1, permissions: UInt64? = nil,
                      rpId: String? = nil) throws -> (CBORMap, PlatformSession) {
        let rpId = rpId ?? ((permissions ?? 0) & 0x03 != 0 ? "example.com" : nil)
        let session = try session(protocol: pinProtocol)
        var request: CBORMap = [.int(1): .int(pinProtocol), .int(2): permissions == nil ? 5 : 9,
                                .int(3): session.platformKey,
                                .int(6): .bytes(try session.encrypt(pinHash(pin), iv: nextBytes(16)))]
        if let permissions { request[int: 9] = .unsigned(permissions) }
        if let rpId { request[int: 10] = .text(rpId) }
        return (request, session)
    }

    /// A token, or the failing reply.
    func token(_ pin: String, protocol pinProtocol: Int = 1, permissions: UInt64? = nil,
               rpId: String? = nil) throws -> Result<PlatformToken, TestFailure> {
        let (request, session) = try tokenRequest(pin, protocol: pinProtocol, permissions: permissions, rpId: rpId)
        let reply = call(CTAPByte.clientPIN, request)
        guard reply.isOK, let encrypted = reply.map?[int: 2]?.bytesValue else {
            return .failure(TestFailure("token: \(reply)"))
        }
        return .success(PlatformToken(pinProtocol: session.pinProtocol, value: try session.decrypt(encrypted)))
    }

    /// getPINRetries (1).
    func pinRetries() -> Int? {
        call(CTAPByte.clientPIN, [.int(1): 1, .int(2): 1]).map?[int: 3]?.intValue
    }

    // MARK: - Credentials

    static func clientDataHash(_ label: String) -> [UInt8] { SHA256.hash(Array(label.utf8)) }

    /// A makeCredential request for ES256.
    static func makeCredentialRequest(rpId: String = "example.com", userId: [UInt8], userName: String = "user",
                                      rk: Bool, token: PlatformToken? = nil,
                                      clientDataHash: [UInt8] = clientDataHash("make")) -> CBORMap {
        var request: CBORMap = [
            .int(1): .bytes(clientDataHash), .int(2): .map(["id": .text(rpId), "name": "RP"]),
            .int(3): .map(["id": .bytes(userId), "name": .text(userName), "displayName": .text(userName)]),
            .int(4): .array([.map(["alg": -7, "type": "public-key"])]),
        ]
        if rk { request[int: 7] = .map(["rk": true]) }
        if let token {
            request[int: 8] = .bytes(token.authenticate(clientDataHash))
            request[int: 9] = .int(token.pinProtocol.rawValue)
        }
        return request
    }

    /// A getAssertion request.
    static func getAssertionRequest(rpId: String = "example.com", allow: [[UInt8]] = [], token: PlatformToken? = nil,
                                    clientDataHash: [UInt8] = clientDataHash("get")) -> CBORMap {
        var request: CBORMap = [.int(1): .text(rpId), .int(2): .bytes(clientDataHash)]
        if !allow.isEmpty {
            request[int: 3] = .array(allow.map { .map(["id": .bytes($0), "type": "public-key"]) })
        }
        if let token {
            request[int: 6] = .bytes(token.authenticate(clientDataHash))
            request[int: 7] = .int(token.pinProtocol.rawValue)
        }
        return request
    }

    /// An authenticated credentialManagement request: pinUvAuthParam over subCommand ‖ params.
    static func credentialManagementRequest(_ subcommand: UInt64, _ parameters: CBORMap? = nil,
                                            token: PlatformToken?) -> CBORMap {
        var request: CBORMap = [.int(1): .unsigned(subcommand)]
        if let parameters { request[int: 2] = .map(parameters) }
        if let token {
            var message: [UInt8] = [UInt8(truncatingIfNeeded: subcommand)]
            if let parameters { message += CBOREncoder.encode(.map(parameters)) }
            request[int: 3] = .int(token.pinProtocol.rawValue)
            request[int: 4] = .bytes(token.authenticate(message))
        }
        return request
    }

    /// The credential ID in a makeCredential response's authData (WebAuthn §6.5.1), with the
    /// signature counter.
    static func credential(fromMakeCredential reply: CTAPReply) -> (id: [UInt8], counter: UInt32)? {
        guard let authData = reply.map?[int: 2]?.bytesValue, authData.count > 55 else { return nil }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        guard authData.count >= 55 + length else { return nil }
        return (Array(authData[55..<55 + length]), counter(authData))
    }

    /// The signature counter of authenticator data.
    static func counter(_ authData: [UInt8]) -> UInt32 {
        guard authData.count >= 37 else { return 0 }
        return authData[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
