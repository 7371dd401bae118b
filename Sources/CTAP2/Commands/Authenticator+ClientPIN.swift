import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5).
    mutating func clientPIN(_ request: ClientPINRequest,
                            changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        guard let subcommand = request.subcommand else { throw .invalidSubcommand }
        if subcommand == .getPINRetries {
            return ClientPINResponse(pinRetries: state.pinRetries,
                                     powerCycleState: profile.supportsCTAP21 ? session.consecutivePINFailures >= 3 : nil)
        }
        let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
        switch subcommand {
        case .getPINRetries:
            preconditionFailure("answered above")
        case .getKeyAgreement:
            return ClientPINResponse(keyAgreement: COSEKey.keyAgreement(session.keyAgreementKey.publicKey))
        case .setPIN:
            try setPIN(ClientPINRequest.SetPIN(request), pinProtocol, changes: &changes)
            return nil
        case .changePIN:
            try changePIN(ClientPINRequest.ChangePIN(request), pinProtocol, changes: &changes)
            return nil
        case .getPinToken:
            if profile.pinUvAuthToken, request.permissions != nil || request.rpId != nil {
                throw .invalidParameter
            }
            return try issueToken(ClientPINRequest.PINToken(request), pinProtocol,
                                  permissions: [.makeCredential, .getAssertion], rpId: nil, changes: &changes)
        case .getPinUvAuthTokenUsingPinWithPermissions where profile.pinUvAuthToken:
            guard let permissions = request.permissions else { throw .missingParameter }
            guard permissions != 0, permissions <= 0xFF else { throw .invalidParameter }
            var supported: PINUVAuthPermissions = [.makeCredential, .getAssertion]
            if profile.credentialManagement { supported.insert(.credentialManagement) }
            let asked = PINUVAuthPermissions(rawValue: UInt8(permissions))
            guard asked.isSubset(of: supported) else { throw .unauthorizedPermission }
            return try issueToken(ClientPINRequest.PINToken(request), pinProtocol, permissions: asked,
                                  rpId: request.rpId, changes: &changes)
        case .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries, .getPinUvAuthTokenUsingPinWithPermissions:
            // No built-in user verification on this card.
            throw .invalidSubcommand
        }
    }

    private mutating func setPIN(_ request: ClientPINRequest.SetPIN, _ pinProtocol: PINUVAuthProtocol,
                                 changes: inout [CardMutation]) throws(CTAPStatus) {
        guard !state.isPINSet else { throw .pinAuthInvalid }
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: session.keyAgreementKey, platformKey: request.keyAgreement)
        guard pinProtocol.verify(key: sharedSecret, message: request.newPinEnc, signature: request.pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        let pin = try decryptNewPIN(request.newPinEnc, sharedSecret: sharedSecret, pinProtocol)
        changes.append(.setPIN(hash: pin.hash, codePoints: pin.codePoints))
    }

    private mutating func changePIN(_ request: ClientPINRequest.ChangePIN, _ pinProtocol: PINUVAuthProtocol,
                                    changes: inout [CardMutation]) throws(CTAPStatus) {
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: session.keyAgreementKey, platformKey: request.keyAgreement)
        guard pinProtocol.verify(key: sharedSecret, message: request.newPinEnc + request.pinHashEnc,
                                 signature: request.pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        beginPINCheck(request.pinHashEnc, sharedSecret: sharedSecret, pinProtocol,
                      then: .changePIN(newPinEnc: request.newPinEnc), changes: &changes)
    }

    private mutating func issueToken(_ request: ClientPINRequest.PINToken, _ pinProtocol: PINUVAuthProtocol,
                                     permissions: PINUVAuthPermissions, rpId: String?,
                                     changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: session.keyAgreementKey, platformKey: request.keyAgreement)
        beginPINCheck(request.pinHashEnc, sharedSecret: sharedSecret, pinProtocol,
                      then: .issueToken(permissions: permissions, rpId: rpId), changes: &changes)
        return nil
    }

    /// PIN_NOT_SET, PIN_BLOCKED (retries exhausted) or PIN_AUTH_BLOCKED (three failures since power-up).
    private func checkPINUsable() throws(CTAPStatus) {
        guard state.isPINSet else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        guard session.consecutivePINFailures < 3 else { throw .pinAuthBlocked }
    }

    /// Starts comparing the platform's encrypted PIN hash with the stored one. As a smart card
    /// does, the retry counter is decremented *before* the comparison: the command stops here with
    /// the decrement as its only change, and goes on (``resume(_:)``) once that is durable, so
    /// cutting power during the check cannot buy an extra attempt.
    private mutating func beginPINCheck(_ pinHashEnc: [UInt8], sharedSecret: [UInt8], _ pinProtocol: PINUVAuthProtocol,
                                        then next: PINCheck.Next, changes: inout [CardMutation]) {
        changes.append(.setPINRetries(state.pinRetries - 1))
        suspendedPINCheck = PINCheck(pinHashEnc: pinHashEnc, sharedSecret: sharedSecret, pinProtocol: pinProtocol,
                                     next: next, environment: nil)
    }

    /// The PIN check once the decrement is durable: compares, then changes the PIN or issues the
    /// token. A wrong PIN regenerates the key agreement key and counts a failure in a row.
    mutating func resume(_ check: PINCheck) -> CommandOutcome {
        let rollback = CommandOutcome.Rollback(session: session, random: random)
        if let environment = check.environment { running = (.ctap(CTAPCommand.clientPIN.rawValue), environment) }
        defer { running = nil }
        var changes: [CardMutation] = []
        do {
            let body = try finishPINCheck(check, changes: &changes)
            let response = [CTAPStatus.ok.rawValue] + (body.map { CBOREncoder.encode($0.encoded()) } ?? [])
            return CommandOutcome(response: response, changes: changes, rollback: rollback)
        } catch {
            return CommandOutcome(response: [error.rawValue], changes: changes, rollback: rollback)
        }
    }

    private mutating func finishPINCheck(_ check: PINCheck, changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        let pinProtocol = check.pinProtocol
        let expectedLength = pinProtocol == .one ? 16 : 32
        let pinHash = check.pinHashEnc.count == expectedLength
            ? pinProtocol.decrypt(key: check.sharedSecret, ciphertext: check.pinHashEnc) : nil
        guard let pinHash, let stored = state.pinHash, ConstantTime.equals(pinHash, stored) else {
            session.keyAgreementKey = random.p256Key()
            session.consecutivePINFailures += 1
            if state.pinRetries == 0 { throw .pinBlocked }
            if session.consecutivePINFailures >= 3 { throw .pinAuthBlocked }
            throw .pinInvalid
        }
        session.consecutivePINFailures = 0
        changes.append(.setPINRetries(CardState.maximumPINRetries))
        switch check.next {
        case .changePIN(let newPinEnc):
            let pin = try decryptNewPIN(newPinEnc, sharedSecret: check.sharedSecret, pinProtocol)
            changes.append(.setPIN(hash: pin.hash, codePoints: pin.codePoints))
            session.token = nil
            return nil
        case .issueToken(let permissions, let rpId):
            let token = PINUVAuthToken(value: random.bytes(32), permissions: permissions, rpId: rpId)
            session.token = token
            let encrypted = pinProtocol.encrypt(key: check.sharedSecret, plaintext: token.value, iv: random.bytes(16))
            return ClientPINResponse(pinUvAuthToken: encrypted)
        }
    }

    /// Decrypts `newPinEnc` and applies the card's PIN policy.
    private func decryptNewPIN(_ newPinEnc: [UInt8], sharedSecret: [UInt8],
                               _ pinProtocol: PINUVAuthProtocol) throws(CTAPStatus) -> PINPolicy.AcceptedPIN {
        // CTAP 2.1 §6.5.5.5 step 6 / §6.5.5.6 step 9: a decrypt error is PIN_AUTH_INVALID.
        guard let padded = pinProtocol.decrypt(key: sharedSecret, ciphertext: newPinEnc) else {
            throw .pinAuthInvalid
        }
        return try pinPolicy.checkPadded(padded)
    }

    /// The card's PIN policy.
    var pinPolicy: PINPolicy { PINPolicy(minimumCodePoints: profile.minPINLength) }
}

/// A PIN comparison waiting for its retry decrement to be durable (CTAP 2.1 §6.5.5.6, §6.5.5.7).
struct PINCheck {
    /// What follows a correct PIN.
    enum Next {
        case changePIN(newPinEnc: [UInt8])
        case issueToken(permissions: PINUVAuthPermissions, rpId: String?)
    }

    let pinHashEnc: [UInt8]
    let sharedSecret: [UInt8]
    let pinProtocol: PINUVAuthProtocol
    let next: Next
    /// The world of the command that started the check.
    var environment: CommandEnvironment?

    func resuming(in environment: CommandEnvironment) -> PINCheck {
        var check = self
        check.environment = environment
        return check
    }
}
