import CardCrypto

/// Self-contained credential IDs, as real cards issue for non-discoverable credentials.
///
/// A credential ID carries the private key encrypted under a card secret (AES-256-CBC) and a MAC
/// that binds it to the RP ID hash, so the card needs no storage for it and rejects it for any
/// other RP. Layout (81 bytes): version `01` ‖ IV (16) ‖ ciphertext (48) ‖ tag (16), where the
/// plaintext is the 32-byte scalar ‖ flags ‖ credProtect ‖ 14 zero bytes and the tag is
/// LEFT(HMAC-SHA-256(macKey, version ‖ IV ‖ ciphertext ‖ rpIdHash), 16).
struct CredentialWrapper: Sendable {
    static let version: UInt8 = 0x01
    static let idLength = 1 + 16 + 48 + 16

    private let encryptionKey: [UInt8]
    private let macKey: [UInt8]
    /// Key from which each credential's hmac-secret CredRandom values derive.
    private let credRandomKey: [UInt8]

    init(masterSecret: [UInt8]) {
        func derive(_ label: String) -> [UInt8] {
            HKDFSHA256.deriveKey(inputKeyMaterial: masterSecret, salt: [], info: Array(label.utf8), outputByteCount: 32)
        }
        encryptionKey = derive("arculus-emulator credential encryption")
        macKey = derive("arculus-emulator credential authentication")
        credRandomKey = derive("arculus-emulator hmac-secret CredRandom")
    }

    /// What a credential ID carries.
    struct Contents: Equatable {
        var privateKey: [UInt8]
        var discoverable: Bool
        var hmacSecret: Bool
        var credProtect: UInt8
    }

    func wrap(_ contents: Contents, rpIdHash: [UInt8], iv: [UInt8]) -> [UInt8] {
        var flags: UInt8 = 0
        if contents.discoverable { flags |= 0x01 }
        if contents.hmacSecret { flags |= 0x02 }
        var plaintext = contents.privateKey
        plaintext.append(flags)
        plaintext.append(contents.credProtect)
        plaintext += [UInt8](repeating: 0, count: 14)
        let ciphertext: [UInt8]
        do {
            ciphertext = try AES256CBC.encrypt(key: encryptionKey, iv: iv, plaintext: plaintext)
        } catch {
            preconditionFailure("wrapping a 48-byte block failed: \(error)")
        }
        var id = [Self.version] + iv + ciphertext
        id += tag(id, rpIdHash: rpIdHash)
        return id
    }

    /// The contents of a credential ID this card issued for this RP, or nil.
    func unwrap(_ id: [UInt8], rpIdHash: [UInt8]) -> Contents? {
        guard id.count == Self.idLength, id[0] == Self.version else { return nil }
        let body = Array(id[0..<(Self.idLength - 16)])
        guard ConstantTime.equals(tag(body, rpIdHash: rpIdHash), Array(id[(Self.idLength - 16)...])) else { return nil }
        guard let plaintext = try? AES256CBC.decrypt(key: encryptionKey, iv: Array(id[1..<17]), ciphertext: Array(id[17..<65])) else {
            return nil
        }
        let flags = plaintext[32]
        let credProtect = plaintext[33]
        guard (1...3).contains(credProtect) else { return nil }
        return Contents(privateKey: Array(plaintext[0..<32]), discoverable: flags & 0x01 != 0,
                        hmacSecret: flags & 0x02 != 0, credProtect: credProtect)
    }

    /// CredRandomWithUV / CredRandomWithoutUV for hmac-secret (CTAP 2.1 §12.5), derived from the key.
    func credRandom(privateKey: [UInt8], userVerified: Bool) -> [UInt8] {
        HMACSHA256.authenticate(key: credRandomKey, data: [userVerified ? 1 : 0] + privateKey)
    }

    private func tag(_ body: [UInt8], rpIdHash: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticate(key: macKey, data: body + rpIdHash).prefix(16))
    }
}
