import CBOR
import CardCrypto
import FIDOWire

/// The extensions this card knows (CTAP 2.1 §12, CTAP 2.2 §12): the keys of an extensions map.
enum ExtensionIdentifier: String, MemberKey {
    case credProtect, hmacSecret = "hmac-secret", hmacSecretMC = "hmac-secret-mc", credBlob, largeBlobKey
    case minPinLength, thirdPartyPayment
}

/// The makeCredential extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
/// Extensions the profile does not offer are ignored, as the specification asks.
struct MakeCredentialExtensions {
    var credProtect: UInt8?
    var hmacSecret = false
    /// hmac-secret-mc's input (CTAP 2.2) as sent: salts to evaluate with the new credential's PRF.
    var hmacSecretMC: [UInt8]?
    var credBlob: [UInt8]?
    var largeBlobKey = false
    var minPinLength = false
    var thirdPartyPayment = false

    /// Reads `extensions` (the map as sent, checked whole with the request), in the order of
    /// CTAP 2.1 §12's list.
    init(_ extensions: [UInt8]?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        var credProtect = Member<UInt64>.absent
        var hmacSecret = Member<Bool>.absent
        var hmacSecretMC = Member<ArraySlice<UInt8>>.absent
        var credBlob = Member<[UInt8]>.absent
        var largeBlobKey = Member<Bool>.absent
        var minPinLength = Member<Bool>.absent
        var thirdPartyPayment = Member<Bool>.absent
        var reader = CBORReader(extensions[...])
        do throws(CBORError) {
            guard var members = try MemberMap(&reader) else { return }
            while let name: ExtensionIdentifier = try members.next(&reader) {
                guard profile.offers(name.rawValue) else {
                    _ = try reader.skipItem()
                    continue
                }
                switch name {
                case .credProtect: credProtect = try reader.unsigned()
                case .hmacSecret: hmacSecret = try reader.bool()
                case .hmacSecretMC: hmacSecretMC = try reader.asSent()
                case .credBlob: credBlob = try reader.byteString()
                case .largeBlobKey: largeBlobKey = try reader.bool()
                case .minPinLength: minPinLength = try reader.bool()
                case .thirdPartyPayment: thirdPartyPayment = try reader.bool()
                }
            }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the map
        }
        if let level = try credProtect.optional(), (1...3).contains(level) { self.credProtect = UInt8(level) }
        self.hmacSecret = try hmacSecret.optional() ?? false
        self.hmacSecretMC = try hmacSecretMC.optional().map(Array.init)
        self.credBlob = try credBlob.optional()
        self.largeBlobKey = try largeBlobKey.onlyTrue()
        self.minPinLength = try minPinLength.optional() ?? false
        self.thirdPartyPayment = try thirdPartyPayment.optional() ?? false
    }
}

/// The getAssertion extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
struct GetAssertionExtensions {
    /// hmac-secret's input as sent.
    var hmacSecret: [UInt8]?
    var getCredBlob = false
    var largeBlobKey = false
    var thirdPartyPayment = false

    /// No extensions asked for.
    init() {}

    /// Reads `extensions` (the map as sent, checked whole with the request).
    init(_ extensions: [UInt8]?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        var hmacSecret = Member<ArraySlice<UInt8>>.absent
        var credBlob = Member<Bool>.absent
        var largeBlobKey = Member<Bool>.absent
        var thirdPartyPayment = Member<Bool>.absent
        var reader = CBORReader(extensions[...])
        do throws(CBORError) {
            guard var members = try MemberMap(&reader) else { return }
            while let name: ExtensionIdentifier = try members.next(&reader) {
                switch name {
                case .hmacSecret where profile.offers(name.rawValue): hmacSecret = try reader.asSent()
                // getAssertion's input is `"credBlob": true` (CTAP 2.1 §12.2; "getCredBlob" is the
                // WebAuthn client's name for it).
                case .credBlob where profile.offers(name.rawValue): credBlob = try reader.bool()
                case .largeBlobKey where profile.offers(name.rawValue): largeBlobKey = try reader.bool()
                case .thirdPartyPayment where profile.offers(name.rawValue): thirdPartyPayment = try reader.bool()
                default: _ = try reader.skipItem()
                }
            }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the map
        }
        self.hmacSecret = try hmacSecret.optional().map(Array.init)
        getCredBlob = try credBlob.optional() ?? false
        self.largeBlobKey = try largeBlobKey.onlyTrue()
        self.thirdPartyPayment = try thirdPartyPayment.optional() ?? false
    }
}

extension Member where Value == Bool {
    /// An input that, when present, is `true` (largeBlobKey, CTAP 2.1 §12.3): false is INVALID_OPTION.
    func onlyTrue() throws(CTAPStatus) -> Bool {
        guard let flag = try optional() else { return false }
        guard flag else { throw .invalidOption }
        return true
    }
}

/// An hmac-secret (or hmac-secret-mc) input as sent (CTAP 2.1 §12.5): the platform's key
/// agreement key and its encrypted, authenticated salts.
struct HMACSecretSalts: Sendable, Equatable {
    /// A COSE_Key, for the PIN/UV auth protocol's codec.
    var keyAgreement: CBORValue
    var saltEnc: [UInt8]
    var saltAuth: [UInt8]
    var pinUvAuthProtocol: UInt64?
}

extension HMACSecretSalts: CTAPMessage {
    /// Reads the input: keyAgreement, saltEnc and saltAuth are required, in that order.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var keyAgreement = Member<CBORValue>.absent
        var saltEnc = Member<[UInt8]>.absent
        var saltAuth = Member<[UInt8]>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        while let key: HMACSecretInputKey = try members.next(&reader) {
            switch key {
            case .keyAgreement: keyAgreement = try reader.anyValue()
            case .saltEnc: saltEnc = try reader.byteString()
            case .saltAuth: saltAuth = try reader.byteString()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            }
        }
        return Result { () throws(CTAPStatus) in
            let keyAgreement = try keyAgreement.required()
            let saltEnc = try saltEnc.required()
            let saltAuth = try saltAuth.required()
            return HMACSecretSalts(keyAgreement: keyAgreement, saltEnc: saltEnc, saltAuth: saltAuth,
                                   pinUvAuthProtocol: try pinUvAuthProtocol.optional())
        }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(HMACSecretInputKey.keyAgreement, value: keyAgreement, of: &map)
        writer.member(HMACSecretInputKey.saltEnc, bytes: saltEnc, of: &map)
        writer.member(HMACSecretInputKey.saltAuth, bytes: saltAuth, of: &map)
        writer.member(HMACSecretInputKey.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.close(map)
    }
}

/// The decrypted salts of an hmac-secret (or hmac-secret-mc) input (CTAP 2.1 §12.5).
struct HMACSecretInput: Sendable {
    let pinProtocol: PINUVAuthProtocol
    let sharedSecret: [UInt8]
    let salts: [UInt8]
}

extension Authenticator {
    /// Parses and decrypts an hmac-secret input: keyAgreement, saltEnc, saltAuth and the protocol
    /// (default 1). saltAuth must verify (PIN_AUTH_INVALID); the salts are 32 or 64 bytes: "If the
    /// decryption fails, or if the result is not 32 or 64 bytes long, return
    /// CTAP1_ERR_INVALID_PARAMETER." (CTAP 2.1 §12.5).
    mutating func decodeHMACSecret(_ input: [UInt8]) throws(CTAPStatus) -> HMACSecretInput {
        let salts = try HMACSecretSalts(decoding: input[...])
        let saltEnc = salts.saltEnc
        let saltAuth = salts.saltAuth
        let pinProtocol = try self.pinProtocol(salts.pinUvAuthProtocol ?? 1)
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: keyAgreementKey(pinProtocol), platformKey: salts.keyAgreement)
        guard pinProtocol.verify(key: sharedSecret, message: saltEnc, signature: saltAuth) else {
            throw .pinAuthInvalid
        }
        guard let salts = pinProtocol.decrypt(key: sharedSecret, ciphertext: saltEnc),
              salts.count == 32 || salts.count == 64 else {
            throw .invalidParameter
        }
        return HMACSecretInput(pinProtocol: pinProtocol, sharedSecret: sharedSecret, salts: salts)
    }

    /// The encrypted hmac-secret output: HMAC-SHA-256(CredRandom, salt) for each salt. A CTAP 2.1
    /// card picks CredRandomWithUV or CredRandomWithoutUV; a CTAP 2.0 card has one CredRandom.
    mutating func hmacSecretOutput(_ input: HMACSecretInput, key: CredentialKeyMaterial, userVerified: Bool) -> [UInt8] {
        let credRandom = memory.wrapper.credRandom(key: key, userVerified: profile.supportsCTAP21 ? userVerified : nil)
        var output = HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[0..<32]))
        if input.salts.count == 64 {
            output += HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[32..<64]))
        }
        return input.pinProtocol.encrypt(key: input.sharedSecret, plaintext: output, iv: random.bytes(16))
    }
}
