import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5).
    func clientPIN(_ parameters: Parameters) throws(CTAPStatus) -> CBORValue? {
        let subcommandNumber = try parameters.requiredUnsigned(0x02)
        let protocolNumber = try parameters.unsigned(0x01)
        guard let subcommand = ClientPINSubcommand(rawValue: Int(clamping: subcommandNumber)) else { throw .invalidSubcommand }
        if subcommand == .getPINRetries {
            return pinRetriesResponse()
        }
        let pinProtocol = try self.pinProtocol(protocolNumber)
        switch subcommand {
        case .getPINRetries:
            preconditionFailure("answered above")
        case .getKeyAgreement:
            return .map([.int(0x01): COSEKey.keyAgreement(volatile.keyAgreementKey.publicKey)])
        case .setPIN:
            try setPIN(parameters, pinProtocol)
            return nil
        case .changePIN:
            try changePIN(parameters, pinProtocol)
            return nil
        case .getPinToken:
            if profile.pinUvAuthToken, parameters[0x09] != nil || parameters[0x0A] != nil {
                throw .invalidParameter
            }
            return try issueToken(parameters, pinProtocol, permissions: 0x03, rpId: nil)
        case .getPinUvAuthTokenUsingPinWithPermissions where profile.pinUvAuthToken:
            guard let permissions = try parameters.unsigned(0x09) else { throw .missingParameter }
            let rpId = try parameters.text(0x0A)
            guard permissions != 0, permissions <= 0xFF else { throw .invalidParameter }
            var supported: UInt64 = 0x03
            if profile.credentialManagement { supported |= 0x04 }
            guard permissions & ~supported == 0 else { throw .unauthorizedPermission }
            return try issueToken(parameters, pinProtocol, permissions: UInt8(permissions), rpId: rpId)
        case .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries, .getPinUvAuthTokenUsingPinWithPermissions:
            // No built-in user verification on this card.
            throw .invalidSubcommand
        }
    }

    private func pinRetriesResponse() -> CBORValue {
        var response = CBORMap()
        response[.int(0x03)] = .int(state.pinRetries)
        if profile.supportsCTAP21 {
            response[.int(0x04)] = .bool(volatile.consecutivePINFailures >= 3)
        }
        return .map(response)
    }

    private func setPIN(_ parameters: Parameters, _ pinProtocol: PINUVAuthProtocol) throws(CTAPStatus) {
        guard let platformKey = parameters[0x03] else { throw .missingParameter }
        let pinUvAuthParam = try parameters.requiredBytes(0x04)
        let newPinEnc = try parameters.requiredBytes(0x05)
        guard !state.isPINSet else { throw .pinAuthInvalid }
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: volatile.keyAgreementKey, platformKey: platformKey)
        guard pinProtocol.verify(key: sharedSecret, message: newPinEnc, signature: pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        let (hash, codePoints) = try decryptNewPIN(newPinEnc, sharedSecret: sharedSecret, pinProtocol)
        try persist(.setPIN(hash: hash, codePoints: codePoints))
    }

    private func changePIN(_ parameters: Parameters, _ pinProtocol: PINUVAuthProtocol) throws(CTAPStatus) {
        guard let platformKey = parameters[0x03] else { throw .missingParameter }
        let pinUvAuthParam = try parameters.requiredBytes(0x04)
        let newPinEnc = try parameters.requiredBytes(0x05)
        let pinHashEnc = try parameters.requiredBytes(0x06)
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: volatile.keyAgreementKey, platformKey: platformKey)
        guard pinProtocol.verify(key: sharedSecret, message: newPinEnc + pinHashEnc, signature: pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        try verifyPINHash(pinHashEnc, sharedSecret: sharedSecret, pinProtocol)
        let (hash, codePoints) = try decryptNewPIN(newPinEnc, sharedSecret: sharedSecret, pinProtocol)
        try persist(.setPIN(hash: hash, codePoints: codePoints))
        volatile.token = nil
    }

    private func issueToken(_ parameters: Parameters, _ pinProtocol: PINUVAuthProtocol,
                            permissions: UInt8, rpId: String?) throws(CTAPStatus) -> CBORValue {
        guard let platformKey = parameters[0x03] else { throw .missingParameter }
        let pinHashEnc = try parameters.requiredBytes(0x06)
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: volatile.keyAgreementKey, platformKey: platformKey)
        try verifyPINHash(pinHashEnc, sharedSecret: sharedSecret, pinProtocol)
        let token = PINUVAuthToken(value: randomBytes(32), permissions: permissions, rpId: rpId)
        volatile.token = token
        let encrypted = pinProtocol.encrypt(key: sharedSecret, plaintext: token.value, iv: randomBytes(16))
        return .map([.int(0x02): .bytes(encrypted)])
    }

    /// PIN_NOT_SET, PIN_BLOCKED (retries exhausted) or PIN_AUTH_BLOCKED (three failures since power-up).
    private func checkPINUsable() throws(CTAPStatus) {
        guard state.isPINSet else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        guard volatile.consecutivePINFailures < 3 else { throw .pinAuthBlocked }
    }

    /// Compares the platform's encrypted PIN hash with the stored one. As a smart card does, the
    /// retry counter is decremented and made durable *before* the comparison, so cutting power
    /// during the check cannot buy an extra attempt.
    private func verifyPINHash(_ pinHashEnc: [UInt8], sharedSecret: [UInt8], _ pinProtocol: PINUVAuthProtocol) throws(CTAPStatus) {
        try persist(.setPINRetries(state.pinRetries - 1))
        let expectedLength = pinProtocol == .one ? 16 : 32
        let pinHash = pinHashEnc.count == expectedLength
            ? pinProtocol.decrypt(key: sharedSecret, ciphertext: pinHashEnc) : nil
        guard let pinHash, let stored = state.pinHash, ConstantTime.equals(pinHash, stored) else {
            volatile.keyAgreementKey = newPrivateKey()
            volatile.consecutivePINFailures += 1
            if state.pinRetries == 0 { throw .pinBlocked }
            if volatile.consecutivePINFailures >= 3 { throw .pinAuthBlocked }
            throw .pinInvalid
        }
        volatile.consecutivePINFailures = 0
        try persist(.setPINRetries(CardState.maximumPINRetries))
    }

    /// Decrypts `newPinEnc` and applies the PIN policy: a 64-byte padded block, at most 63 bytes of
    /// UTF-8 before the zero padding, at least `minPINLength` code points.
    private func decryptNewPIN(_ newPinEnc: [UInt8], sharedSecret: [UInt8], _ pinProtocol: PINUVAuthProtocol) throws(CTAPStatus) -> ([UInt8], Int) {
        // CTAP 2.1 §6.5.5.5 step 6 / §6.5.5.6 step 9: a decrypt error is PIN_AUTH_INVALID.
        guard let padded = pinProtocol.decrypt(key: sharedSecret, ciphertext: newPinEnc) else {
            throw .pinAuthInvalid
        }
        guard padded.count == 64 else { throw .invalidParameter }
        var pin = padded
        while let last = pin.last, last == 0 { pin.removeLast() }
        guard pin.count <= 63, let text = String(validating: pin, as: UTF8.self) else {
            throw .pinPolicyViolation
        }
        let codePoints = text.unicodeScalars.count
        guard codePoints >= profile.minPINLength else { throw .pinPolicyViolation }
        return (Array(SHA256.hash(pin).prefix(16)), codePoints)
    }
}
