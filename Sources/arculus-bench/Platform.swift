import ArculusCard
import COSE
import CardCrypto
import FIDOWire

/// The platform (client) side of the benchmark: CTAP2 requests as a browser or python-fido2
/// would send them, and PIN/UV auth protocol two (CTAP 2.1 §6.5.7) for the PIN rows. Building a
/// request is the platform's work, so workloads build them outside their timed part.
enum Platform {
    static let rpId = "bench.example"
    static let pin = "12345678"

    /// authenticatorGetInfo.
    static let getInfo: [UInt8] = [CTAPCommand.getInfo.rawValue]

    /// authenticatorGetAssertion with an allow list of one.
    static func getAssertion(rpId: String = rpId, clientDataHash: [UInt8], credentialId: [UInt8],
                             pinUvAuthParam: [UInt8]? = nil) -> [UInt8] {
        var map = CBORMap()
        map[.int(0x01)] = .text(rpId)
        map[.int(0x02)] = .bytes(clientDataHash)
        map[.int(0x03)] = .array([.map(["id": .bytes(credentialId), "type": "public-key"])])
        if let pinUvAuthParam {
            map[.int(0x06)] = .bytes(pinUvAuthParam)
            map[.int(0x07)] = .int(2)
        }
        return [CTAPCommand.getAssertion.rawValue] + CBOREncoder.encode(.map(map))
    }

    /// authenticatorMakeCredential for ES256, discoverable or not, packed attestation.
    static func makeCredential(rpId: String = rpId, clientDataHash: [UInt8], userId: [UInt8], discoverable: Bool,
                               pinUvAuthParam: [UInt8]? = nil) -> [UInt8] {
        var map = CBORMap()
        map[.int(0x01)] = .bytes(clientDataHash)
        map[.int(0x02)] = .map(["id": .text(rpId), "name": "Bench RP"])
        map[.int(0x03)] = .map(["id": .bytes(userId), "name": "bench-user", "displayName": "Bench User"])
        map[.int(0x04)] = .array([.map(["alg": .int(-7), "type": "public-key"])])
        if discoverable { map[.int(0x07)] = .map(["rk": true]) }
        if let pinUvAuthParam {
            map[.int(0x08)] = .bytes(pinUvAuthParam)
            map[.int(0x09)] = .int(2)
        }
        return [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(.map(map))
    }

    /// clientPIN getKeyAgreement (protocol two).
    static let getKeyAgreement: [UInt8] =
        [CTAPCommand.clientPIN.rawValue] + CBOREncoder.encode(.map([.int(1): .int(2), .int(2): .int(2)]))

    /// NFCCTAP_MSG carrying `request` as a short APDU (P1 `80`, as python-fido2 sends it), Le `00`.
    static func nfcctapMessage(_ request: [UInt8]) throws -> [UInt8] {
        let apdus = NFCHostFraming.messageAPDUs(request)
        guard apdus.count == 1 else { throw BenchError("request of \(request.count) bytes needs chaining") }
        return apdus[0]
    }

    /// SELECT of the FIDO applet.
    static let select: [UInt8] = NFCBinding.selectFIDOApplet

    /// The body of a CTAP2 response that must have succeeded.
    static func body(of response: [UInt8], _ what: String) throws -> CBORMap {
        guard response.first == 0x00 else {
            throw BenchError("\(what) answered CTAP status \(response.first.map { String($0, radix: 16) } ?? "none")")
        }
        guard response.count > 1 else { return CBORMap() }
        guard let map = try CBORDecoder.decode(Array(response.dropFirst())).mapValue else {
            throw BenchError("\(what) answered a body that is not a map")
        }
        return map
    }

    /// Sends `apdu` to a card in process, following `61xx` with GET RESPONSE (the one host-side
    /// framing, `FIDOWire`'s); data + SW1 SW2.
    static func transmitFollowingChain(_ card: VirtualCard, _ apdu: [UInt8]) -> [UInt8] {
        followingChain(apdu) { card.transmit($0) }
    }

    /// `apdu` through `transmit`, `61xx` followed; data + SW1 SW2 (or the short answer).
    static func followingChain(_ apdu: [UInt8], transmit: ([UInt8]) -> [UInt8]) -> [UInt8] {
        let framing = NFCHostFraming()
        return framing.run(framing.exchange(apdu), transmit: transmit).bytes
    }
}

/// PIN/UV auth protocol two, platform side, with one platform key-agreement key per session.
struct PINProtocolTwoSession {
    let platformKey: P256PrivateKey
    let platformCOSEKey: CBORValue
    /// HMAC key ‖ AES key.
    let sharedSecret: [UInt8]

    /// Agrees on a shared secret with the card's key-agreement key (one getKeyAgreement).
    init(card: VirtualCard) throws {
        let response = try Platform.body(of: card.ctap2(Platform.getKeyAgreement), "getKeyAgreement")
        guard let cose = response[int: 0x01], let key = try? COSEPublicKey(cbor: cose) else {
            throw BenchError("getKeyAgreement answered no COSE key")
        }
        try self.init(cardKey: key.publicKey)
    }

    init(cardKey: P256PublicKey) throws {
        platformKey = try P256PrivateKey()
        platformCOSEKey = COSEPublicKey.keyAgreement(platformKey.publicKey).cbor
        let z = try platformKey.sharedSecret(with: cardKey)
        let salt = [UInt8](repeating: 0, count: 32)
        sharedSecret = HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
            + HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: salt, info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
    }

    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
        let iv = SecureRandom.bytes(16)
        return iv + (try AES256CBC.encrypt(key: Array(sharedSecret[32..<64]), iv: iv, plaintext: plaintext))
    }

    func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] {
        guard ciphertext.count > 16 else { throw BenchError("ciphertext too short") }
        return try AES256CBC.decrypt(key: Array(sharedSecret[32..<64]), iv: Array(ciphertext[0..<16]),
                                     ciphertext: Array(ciphertext[16...]))
    }

    func authenticate(_ message: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(key: Array(sharedSecret[0..<32]), data: message)
    }

    /// clientPIN setPIN.
    func setPIN(_ pin: String) throws -> [UInt8] {
        var padded = Array(pin.utf8)
        padded += [UInt8](repeating: 0, count: 64 - padded.count)
        let newPinEnc = try encrypt(padded)
        let map: CBORMap = [.int(1): .int(2), .int(2): .int(3), .int(3): platformCOSEKey,
                            .int(4): .bytes(authenticate(newPinEnc)), .int(5): .bytes(newPinEnc)]
        return [CTAPCommand.clientPIN.rawValue] + CBOREncoder.encode(.map(map))
    }

    /// clientPIN getPinUvAuthTokenUsingPinWithPermissions (mc | ga) for `rpId`.
    func getPinUvAuthToken(_ pin: String, rpId: String = Platform.rpId) throws -> [UInt8] {
        let pinHashEnc = try encrypt(Array(SHA256.hash(Array(pin.utf8)).prefix(16)))
        let map: CBORMap = [.int(1): .int(2), .int(2): .int(9), .int(3): platformCOSEKey,
                            .int(6): .bytes(pinHashEnc), .int(9): .int(0x03), .int(0x0A): .text(rpId)]
        return [CTAPCommand.clientPIN.rawValue] + CBOREncoder.encode(.map(map))
    }

    /// The pinUvAuthToken out of a getPinUvAuthToken response.
    func token(from response: [UInt8]) throws -> [UInt8] {
        guard let encrypted = try Platform.body(of: response, "getPinUvAuthToken")[int: 0x02]?.bytesValue else {
            throw BenchError("getPinUvAuthToken answered no token")
        }
        return try decrypt(encrypted)
    }
}
