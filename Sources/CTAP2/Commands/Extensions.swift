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
    var uvm = false

    init(_ extensions: CBORMap?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        let inputs = ExtensionInputs(extensions: extensions, profile: profile)
        if let requested = inputs.value("credProtect") {
            guard case .unsigned(let level) = requested else { throw .cborUnexpectedType }
            if (1...3).contains(level) { credProtect = UInt8(level) }
        }
        hmacSecret = try inputs.bool("hmac-secret") ?? false
        hmacSecretMC = try inputs.map("hmac-secret-mc")
        if let blob = inputs.value("credBlob") {
            guard case .bytes(let bytes) = blob else { throw .cborUnexpectedType }
            credBlob = bytes
        }
        largeBlobKey = try inputs.onlyTrue("largeBlobKey")
        minPinLength = try inputs.bool("minPinLength") ?? false
        thirdPartyPayment = try inputs.bool("thirdPartyPayment") ?? false
        uvm = try inputs.bool(UVMExtension.identifier) ?? false
    }
}

/// The getAssertion extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
struct GetAssertionExtensions {
    var hmacSecret: CBORValue?
    var getCredBlob = false
    var largeBlobKey = false
    var thirdPartyPayment = false
    var uvm = false

    /// No extensions asked for.
    init() {}

    init(_ extensions: CBORMap?, profile: CardProfile) throws(CTAPStatus) {
        guard let extensions else { return }
        let inputs = ExtensionInputs(extensions: extensions, profile: profile)
        hmacSecret = try inputs.map("hmac-secret")
        // getAssertion's input is `"credBlob": true` (CTAP 2.1 §12.2; "getCredBlob" is the
        // WebAuthn client's name for it).
        getCredBlob = try inputs.bool("credBlob") ?? false
        largeBlobKey = try inputs.onlyTrue("largeBlobKey")
        thirdPartyPayment = try inputs.bool("thirdPartyPayment") ?? false
        uvm = try inputs.bool(UVMExtension.identifier) ?? false
    }
}

/// An extensions map as the card reads it: only the extensions its profile offers (the others
/// are ignored, CTAP 2.1 §12), each of the CBOR type it takes (else CBOR_UNEXPECTED_TYPE).
private struct ExtensionInputs {
    let extensions: CBORMap
    let profile: CardProfile

    func value(_ name: String) -> CBORValue? { profile.offers(name) ? extensions[text: name] : nil }

    func bool(_ name: String) throws(CTAPStatus) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw .cborUnexpectedType }
        return flag
    }

    func map(_ name: String) throws(CTAPStatus) -> CBORValue? {
        guard let value = value(name) else { return nil }
        guard case .map = value else { throw .cborUnexpectedType }
        return value
    }

    /// An input that, when present, is `true` (largeBlobKey, CTAP 2.1 §12.3): false is INVALID_OPTION.
    func onlyTrue(_ name: String) throws(CTAPStatus) -> Bool {
        guard let flag = try bool(name) else { return false }
        guard flag else { throw .invalidOption }
        return true
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
