import CBOR
import CardCrypto
import FIDOWire

/// The makeCredential extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
/// Extensions the profile does not offer are ignored, as the specification asks.
struct MakeCredentialExtensions {
    var credProtect: UInt8?
    var hmacSecret = false
    /// hmac-secret-mc's input (CTAP 2.2): salts to evaluate with the new credential's PRF.
    var hmacSecretMC: CBORValue?
    var credBlob: [UInt8]?
    var largeBlobKey = false
    var minPinLength = false
    var thirdPartyPayment = false

    init(_ extensions: CBORMap?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        if profile.supportsCredProtect, let requested = extensions[text: "credProtect"] {
            guard case .unsigned(let level) = requested else { throw .cborUnexpectedType }
            if (1...3).contains(level) { credProtect = UInt8(level) }
        }
        if profile.supportsHMACSecret, let requested = extensions[text: "hmac-secret"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            hmacSecret = wanted
        }
        if profile.offers("hmac-secret-mc"), let input = extensions[text: "hmac-secret-mc"] {
            guard case .map = input else { throw .cborUnexpectedType }
            hmacSecretMC = input
        }
        if profile.offers("credBlob"), let blob = extensions[text: "credBlob"] {
            guard case .bytes(let bytes) = blob else { throw .cborUnexpectedType }
            credBlob = bytes
        }
        if profile.offers("largeBlobKey"), let requested = extensions[text: "largeBlobKey"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            // CTAP 2.1 §12.3: the input, when present, is true.
            guard wanted else { throw .invalidOption }
            largeBlobKey = true
        }
        if profile.offers("minPinLength"), let requested = extensions[text: "minPinLength"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            minPinLength = wanted
        }
        if profile.offers("thirdPartyPayment"), let requested = extensions[text: "thirdPartyPayment"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            thirdPartyPayment = wanted
        }
    }
}

/// The getAssertion extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
struct GetAssertionExtensions {
    var hmacSecret: CBORValue?
    var getCredBlob = false
    var largeBlobKey = false
    var thirdPartyPayment = false

    init(_ extensions: CBORMap?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        if profile.supportsHMACSecret, let input = extensions[text: "hmac-secret"] {
            guard case .map = input else { throw .cborUnexpectedType }
            hmacSecret = input
        }
        // getAssertion's input is `"credBlob": true` (CTAP 2.1 §12.2; "getCredBlob" is the
        // WebAuthn client's name for it).
        if profile.offers("credBlob"), let requested = extensions[text: "credBlob"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            getCredBlob = wanted
        }
        if profile.offers("largeBlobKey"), let requested = extensions[text: "largeBlobKey"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            guard wanted else { throw .invalidOption }
            largeBlobKey = true
        }
        if profile.offers("thirdPartyPayment"), let requested = extensions[text: "thirdPartyPayment"] {
            guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
            thirdPartyPayment = wanted
        }
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
    /// (default 1). saltAuth must verify (PIN_AUTH_INVALID); the salts are 32 or 64 bytes.
    mutating func decodeHMACSecret(_ input: CBORValue) throws(CTAPStatus) -> HMACSecretInput {
        let input = try RequestMap<HMACSecretInputKey>(value: input)
        guard let platformKey = input[.keyAgreement] else { throw .missingParameter }
        let saltEnc = try input.requiredBytes(.saltEnc)
        let saltAuth = try input.requiredBytes(.saltAuth)
        let pinProtocol = try self.pinProtocol(try input.unsigned(.pinUvAuthProtocol) ?? 1)
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: keyAgreementKey(pinProtocol), platformKey: platformKey)
        guard pinProtocol.verify(key: sharedSecret, message: saltEnc, signature: saltAuth) else {
            throw .pinAuthInvalid
        }
        guard let salts = pinProtocol.decrypt(key: sharedSecret, ciphertext: saltEnc),
              salts.count == 32 || salts.count == 64 else {
            throw .invalidLength
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
