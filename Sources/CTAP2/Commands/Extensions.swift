import CBOR
import CardCrypto
import FIDOWire

/// The decrypted salts of an hmac-secret (or hmac-secret-mc) input (CTAP 2.1 §12.5).
struct HMACSecretInput: Sendable {
    let pinProtocol: PINUVAuthProtocol
    let sharedSecret: [UInt8]
    let salts: [UInt8]
}

extension CBORMap {
    /// An extension's output in the extensions map of authenticator data, keyed by its identifier.
    subscript(extension identifier: ExtensionIdentifier) -> CBORValue? {
        get { self[text: identifier.rawValue] }
        set { self[text: identifier.rawValue] = newValue }
    }
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
