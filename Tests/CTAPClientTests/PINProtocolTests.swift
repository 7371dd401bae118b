import CardTestSupport
import CBOR
import CTAPClient
import CardCrypto
import Testing
import FIDOWire

/// The platform's PIN/UV auth protocols on their own: the shapes CTAP 2.1 §6.5.6 and §6.5.7 fix.
@Suite("platform PIN/UV auth protocols")
struct PINProtocolTests {
    static func cardKey() throws -> (P256PrivateKey, COSEPublicKey) {
        let key = try P256PrivateKey()
        return (key, COSEPublicKey(algorithm: COSEPublicKey.ecdhESHKDF256, publicKey: key.publicKey))
    }

    @Test("protocol 1: SHA-256(Z), zero-IV AES-CBC, 16-byte HMAC prefix")
    func one() throws {
        let (card, cardCOSE) = try Self.cardKey()
        let one = PINUVAuthProtocolOne()
        let (platformKey, secret) = try one.encapsulate(peer: cardCOSE)
        #expect(platformKey.algorithm == -25)
        let z = try card.sharedSecret(with: platformKey.publicKey)
        #expect(secret == SHA256.hash(z))
        let block = [UInt8](repeating: 0x41, count: 32)
        let encrypted = try one.encrypt(key: secret, plaintext: block)
        #expect(encrypted == (try AES256CBC.encrypt(key: secret, iv: [UInt8](repeating: 0, count: 16), plaintext: block)))
        #expect(try one.decrypt(key: secret, ciphertext: encrypted) == block)
        #expect(one.authenticate(key: secret, message: [1, 2, 3]) == Array(HMACSHA256.authenticate(key: secret, data: [1, 2, 3]).prefix(16)))
    }

    @Test("protocol 2: HKDF HMAC and AES keys, random IV in front, full HMAC")
    func two() throws {
        let (card, cardCOSE) = try Self.cardKey()
        let two = PINUVAuthProtocolTwo()
        let (platformKey, secret) = try two.encapsulate(peer: cardCOSE)
        let z = try card.sharedSecret(with: platformKey.publicKey)
        let zeros = [UInt8](repeating: 0, count: 32)
        #expect(secret.count == 64)
        #expect(Array(secret.prefix(32)) == HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: zeros, info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32))
        #expect(Array(secret.suffix(32)) == HKDFSHA256.deriveKey(inputKeyMaterial: z, salt: zeros, info: Array("CTAP2 AES key".utf8), outputByteCount: 32))
        let block = [UInt8](repeating: 0x42, count: 16)
        let first = try two.encrypt(key: secret, plaintext: block)
        let second = try two.encrypt(key: secret, plaintext: block)
        #expect(first.count == 32)
        #expect(first != second, "a fresh IV each time")
        #expect(try AES256CBC.decrypt(key: Array(secret.suffix(32)), iv: Array(first.prefix(16)), ciphertext: Array(first.dropFirst(16))) == block)
        #expect(try two.decrypt(key: secret, ciphertext: second) == block)
        #expect(two.authenticate(key: secret, message: [9]) == HMACSHA256.authenticate(key: Array(secret.prefix(32)), data: [9]))
        let token = [UInt8](repeating: 5, count: 32)
        #expect(two.authenticate(key: token, message: [9]) == HMACSHA256.authenticate(key: token, data: [9]))
    }

    @Test("protocol 2 refuses a ciphertext without IV and a short secret")
    func twoErrors() {
        let two = PINUVAuthProtocolTwo()
        #expect(throws: CTAPClientError.malformedResponse("a protocol 2 ciphertext of 15 bytes has no IV")) {
            _ = try two.decrypt(key: [UInt8](repeating: 0, count: 64), ciphertext: [UInt8](repeating: 0, count: 15))
        }
        #expect(throws: CTAPClientError.invalidArgument("a protocol 2 shared secret is 64 bytes, not 32")) {
            _ = try two.encrypt(key: [UInt8](repeating: 0, count: 32), plaintext: [UInt8](repeating: 0, count: 16))
        }
    }

    @Test("protocol numbers: 1 and 2 exist, nothing else")
    func numbers() {
        #expect(platformPINUVAuthProtocol(version: 1)?.version == 1)
        #expect(platformPINUVAuthProtocol(version: 2)?.version == 2)
        #expect(platformPINUVAuthProtocol(version: 3) == nil)
    }

    @Test("a card's key-agreement key that is not EC2 P-256 is a malformed response saying why", arguments: [
        (COSEKeyLabel.keyType, CBORValue.int(3), "a COSE key whose kty is not EC2"),
        (COSEKeyLabel.curve, .int(2), "a COSE key whose curve is not P-256"),
        (COSEKeyLabel.y, .bytes([UInt8](repeating: 1, count: 32)), "a COSE key whose point is not on P-256"),
    ])
    func malformedCardKey(label: Int, value: CBORValue, message: String) throws {
        let (recorded, recorder) = try Fixture.client()
        let (_, key) = try Self.cardKey()
        var map = try #require(key.cbor.mapValue)
        map[int: label] = value
        let answer = [0x00] + CBOREncoder.encode(.map([.int(1): .map(map)])) + [0x90, 0x00]
        let card = ScriptedCardTransport(zip(recorder.sent, recorder.received).map { .exchange(command: $0, response: $1) }
                                         + [.anyCommand(response: answer)])
        let client = try CTAPClient(transport: card)
        #expect(client.info == recorded.info)
        let pinProtocol = try #require(platformPINUVAuthProtocol(version: 2))
        #expect(throws: CTAPClientError.malformedResponse(message)) { _ = try client.keyAgreement(pinProtocol) }
    }
}
