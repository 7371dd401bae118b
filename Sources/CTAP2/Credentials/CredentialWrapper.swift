import CardCrypto

/// Self-contained credential IDs, as real cards issue for non-discoverable credentials.
///
/// A credential ID carries the credential's key encrypted under a card secret (AES-256-CBC) and a
/// MAC that binds it to the RP ID hash, so the card needs no storage for it and rejects it for any
/// other RP. Two layouts, told apart by the first byte:
///
/// - version `01` (81 bytes), for ES256 with nothing else to carry: `01` ‖ IV (16) ‖ ciphertext (48)
///   ‖ tag (16); the plaintext is the 32-byte P-256 scalar ‖ flags ‖ credProtect ‖ 14 zero bytes.
/// - version `02`, for any algorithm and a credBlob: `02` ‖ IV (16) ‖ ciphertext ‖ tag (16); the
///   plaintext is alg (2 bytes, signed big-endian) ‖ flags ‖ credProtect ‖ key kind ‖ key length ‖
///   key ‖ credBlob length ‖ credBlob, zero-padded to a whole block. The key is either a 32-byte
///   seed the credential's key derives from (how the card makes keys: every algorithm, RSA too,
///   fits in a short ID) or the key itself in CardCrypto's compact form (a key a test gave).
///
/// The tag is LEFT(HMAC-SHA-256(macKey, version ‖ IV ‖ ciphertext ‖ rpIdHash), 16).
///
/// A card whose profile fixes the length of its credential IDs (behaviour.credentialIdLength)
/// pads each to that length with filler derived from the ID (``padding(for:count:)``), so the
/// filler is checked too; unwrapping tries the layouts' lengths below the ID's.
struct CredentialWrapper: Sendable {
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
    struct Contents: Equatable, Sendable {
        var key: CredentialKeyMaterial
        var discoverable: Bool
        var hmacSecret: Bool
        var credProtect: UInt8
        var credBlob: [UInt8]? = nil
        var thirdPartyPayment = false
    }

    static let version1: UInt8 = 0x01
    static let version2: UInt8 = 0x02
    static let version1Length = 1 + 16 + 48 + 16
    /// The most key bytes a version 2 ID carries (their count is one byte).
    static let maximumKeyBytes = 255

    func wrap(_ contents: Contents, rpIdHash: [UInt8], iv: [UInt8]) -> [UInt8] {
        var flags: UInt8 = 0
        if contents.discoverable { flags |= 0x01 }
        if contents.hmacSecret { flags |= 0x02 }
        if contents.thirdPartyPayment { flags |= 0x04 }
        let version: UInt8
        var plaintext: [UInt8]
        if case .p256Scalar(let scalar) = contents.key, contents.credBlob == nil, !contents.thirdPartyPayment {
            version = Self.version1
            plaintext = scalar + [flags, contents.credProtect] + [UInt8](repeating: 0, count: 14)
        } else {
            version = Self.version2
            let algorithm = UInt16(bitPattern: Int16(contents.key.algorithm.rawValue))
            plaintext = [UInt8(algorithm >> 8), UInt8(algorithm & 0xFF), flags, contents.credProtect,
                         contents.key.kind, UInt8(contents.key.bytes.count)] + contents.key.bytes
            let blob = contents.credBlob ?? []
            plaintext.append(UInt8(blob.count))
            plaintext += blob
            plaintext += [UInt8](repeating: 0, count: (16 - plaintext.count % 16) % 16)
        }
        let ciphertext: [UInt8]
        do {
            ciphertext = try AES256CBC.encrypt(key: encryptionKey, iv: iv, plaintext: plaintext)
        } catch {
            preconditionFailure("wrapping whole blocks failed: \(error)")
        }
        var id = [version] + iv + ciphertext
        id += tag(id, rpIdHash: rpIdHash)
        return id
    }

    /// The contents of a credential ID this card issued for this RP, or nil.
    func unwrap(_ id: [UInt8], rpIdHash: [UInt8]) -> Contents? {
        if let contents = unwrapUnpadded(id, rpIdHash: rpIdHash) { return contents }
        // A padded ID: the core is version 1's 81 bytes or one of version 2's 33 + 16n.
        guard id.count > Self.version1Length, id[0] == Self.version1 || id[0] == Self.version2 else { return nil }
        let lengths = id[0] == Self.version1 ? [Self.version1Length] : Array(stride(from: 49, to: id.count, by: 16))
        for length in lengths {
            let core = Array(id[..<length])
            guard ConstantTime.equals(padding(for: core, count: id.count - length), Array(id[length...])) else { continue }
            return unwrapUnpadded(core, rpIdHash: rpIdHash)
        }
        return nil
    }

    /// `id` padded to `length` bytes (nothing when it is as long already).
    func padded(_ id: [UInt8], to length: Int?) -> [UInt8] {
        guard let length, length > id.count else { return id }
        return id + padding(for: id, count: length - id.count)
    }

    /// `count` filler bytes for the ID `core`: HMAC-SHA-256 blocks under the MAC key, so a changed
    /// byte of the filler is a foreign ID.
    private func padding(for core: [UInt8], count: Int) -> [UInt8] {
        var filler: [UInt8] = []
        var block: UInt8 = 0
        while filler.count < count {
            filler += HMACSHA256.authenticate(key: macKey, data: Array("credential ID filler".utf8) + [block] + core)
            block &+= 1
        }
        return Array(filler.prefix(count))
    }

    private func unwrapUnpadded(_ id: [UInt8], rpIdHash: [UInt8]) -> Contents? {
        guard id.count >= 1 + 16 + 16 + 16, (id.count - 33) % 16 == 0,
              id[0] == Self.version1 ? id.count == Self.version1Length : id[0] == Self.version2 else { return nil }
        let body = Array(id[0..<(id.count - 16)])
        guard ConstantTime.equals(tag(body, rpIdHash: rpIdHash), Array(id[(id.count - 16)...])) else { return nil }
        guard let plaintext = try? AES256CBC.decrypt(key: encryptionKey, iv: Array(id[1..<17]),
                                                      ciphertext: Array(id[17..<(id.count - 16)])) else {
            return nil
        }
        return id[0] == Self.version1 ? Self.contents1(plaintext) : Self.contents2(plaintext)
    }

    private static func contents1(_ plaintext: [UInt8]) -> Contents? {
        let flags = plaintext[32]
        let credProtect = plaintext[33]
        guard (1...3).contains(credProtect) else { return nil }
        return Contents(key: .p256Scalar(Array(plaintext[0..<32])), discoverable: flags & 0x01 != 0,
                        hmacSecret: flags & 0x02 != 0, credProtect: credProtect)
    }

    private static func contents2(_ plaintext: [UInt8]) -> Contents? {
        guard plaintext.count >= 7 else { return nil }
        let algorithmNumber = Int(Int16(bitPattern: UInt16(plaintext[0]) << 8 | UInt16(plaintext[1])))
        let flags = plaintext[2]
        let credProtect = plaintext[3]
        let keyLength = Int(plaintext[5])
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmNumber), (1...3).contains(credProtect),
              plaintext.count >= 7 + keyLength else { return nil }
        let keyBytes = Array(plaintext[6..<(6 + keyLength)])
        let blobLength = Int(plaintext[6 + keyLength])
        guard plaintext.count >= 7 + keyLength + blobLength,
              let key = CredentialKeyMaterial(kind: plaintext[4], algorithm: algorithm, bytes: keyBytes) else { return nil }
        let blob = Array(plaintext[(7 + keyLength)..<(7 + keyLength + blobLength)])
        return Contents(key: key, discoverable: flags & 0x01 != 0, hmacSecret: flags & 0x02 != 0, credProtect: credProtect,
                        credBlob: blobLength > 0 ? blob : nil, thirdPartyPayment: flags & 0x04 != 0)
    }

    /// CredRandom for hmac-secret (CTAP 2.1 §12.5), derived from the credential's key material.
    /// A CTAP 2.1 card has two per credential, CredRandomWithUV and CredRandomWithoutUV; a CTAP 2.0
    /// card has one (`userVerified` nil).
    func credRandom(key: CredentialKeyMaterial, userVerified: Bool?) -> [UInt8] {
        let label: UInt8 = switch userVerified {
        case true?: 1
        case false?: 0
        case nil: 2
        }
        return HMACSHA256.authenticate(key: credRandomKey, data: [label] + key.bytes)
    }

    private func tag(_ body: [UInt8], rpIdHash: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticate(key: macKey, data: body + rpIdHash).prefix(16))
    }
}
