import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5.5; CTAP 2.0 §5.5 on a CTAP 2.0 profile).
    mutating func clientPIN(_ request: ClientPINRequest,
                            changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        guard let subcommand = request.subcommand else { throw .invalidSubcommand }
        if subcommand == .getPINRetries {
            // A card with no PIN has no retries to count: PIN_NOT_SET, as current authenticators
            // answer and python-fido2's device suite expects (see README, "Card profiles").
            guard state.isPINSet else { throw .pinNotSet }
            return ClientPINResponse(pinRetries: state.pinRetries,
                                     powerCycleState: profile.supportsCTAP21 ? session.consecutivePINFailures >= 3 : nil)
        }
        let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
        switch subcommand {
        case .getPINRetries:
            preconditionFailure("answered above")
        case .getKeyAgreement:
            return ClientPINResponse(keyAgreement: COSEKey.keyAgreement(keyAgreementKey(pinProtocol).publicKey))
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
                                  permissions: [.makeCredential, .getAssertion], rpId: nil, legacy: true, changes: &changes)
        case .getPinUvAuthTokenUsingPinWithPermissions where profile.pinUvAuthToken:
            guard let number = request.permissions else { throw .missingParameter }
            guard number != 0, number <= 0xFF else { throw .invalidParameter }
            let asked = PINUVAuthPermissions(rawValue: UInt8(number))
            guard asked.isSubset(of: grantablePermissions) else { throw .unauthorizedPermission }
            // mc and ga are for one RP, which the platform must name (CTAP 2.1 §6.5.5.7, the
            // permissions table: RP ID "Required"); absent, it is a missing parameter. Only
            // getPinToken's token (mc and ga, no RP) is bound by its first use.
            if !asked.isDisjoint(with: [.makeCredential, .getAssertion]) && request.rpId == nil { throw .missingParameter }
            // The persistent token is for read-only credential management alone.
            if asked.contains(.persistentCredentialManagementReadOnly) && asked != .persistentCredentialManagementReadOnly {
                throw .invalidParameter
            }
            return try issueToken(ClientPINRequest.PINToken(request), pinProtocol, permissions: asked,
                                  rpId: request.rpId, legacy: false, changes: &changes)
        case .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries, .getPinUvAuthTokenUsingPinWithPermissions:
            // No built-in user verification on this card.
            throw .invalidSubcommand
        }
    }

    /// The permissions this card can grant (the others are UNAUTHORIZED_PERMISSION).
    private var grantablePermissions: PINUVAuthPermissions {
        var permissions: PINUVAuthPermissions = [.makeCredential, .getAssertion]
        if profile.credentialManagement { permissions.insert(.credentialManagement) }
        if profile.largeBlobs { permissions.insert(.largeBlobWrite) }
        if profile.authenticatorConfig { permissions.insert(.authenticatorConfig) }
        if profile.persistentCredentialManagement { permissions.insert(.persistentCredentialManagementReadOnly) }
        return permissions
    }

    private mutating func setPIN(_ request: ClientPINRequest.SetPIN, _ pinProtocol: PINUVAuthProtocol,
                                 changes: inout [CardMutation]) throws(CTAPStatus) {
        guard !state.isPINSet else { throw .pinAuthInvalid }
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: keyAgreementKey(pinProtocol), platformKey: request.keyAgreement)
        guard pinProtocol.verify(key: sharedSecret, message: request.newPinEnc, signature: request.pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        let pin = try decryptNewPIN(request.newPinEnc, sharedSecret: sharedSecret, pinProtocol)
        changes.append(.setPIN(hash: pin.hash, codePoints: pin.codePoints))
    }

    private mutating func changePIN(_ request: ClientPINRequest.ChangePIN, _ pinProtocol: PINUVAuthProtocol,
                                    changes: inout [CardMutation]) throws(CTAPStatus) {
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: keyAgreementKey(pinProtocol), platformKey: request.keyAgreement)
        guard pinProtocol.verify(key: sharedSecret, message: request.newPinEnc + request.pinHashEnc,
                                 signature: request.pinUvAuthParam) else {
            throw .pinAuthInvalid
        }
        beginPINCheck(request.pinHashEnc, sharedSecret: sharedSecret, pinProtocol,
                      then: .changePIN(newPinEnc: request.newPinEnc), changes: &changes)
    }

    private mutating func issueToken(_ request: ClientPINRequest.PINToken, _ pinProtocol: PINUVAuthProtocol,
                                     permissions: PINUVAuthPermissions, rpId: String?, legacy: Bool,
                                     changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        try checkPINUsable()
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: keyAgreementKey(pinProtocol), platformKey: request.keyAgreement)
        beginPINCheck(request.pinHashEnc, sharedSecret: sharedSecret, pinProtocol,
                      then: .issueToken(permissions: permissions, rpId: rpId, legacy: legacy), changes: &changes)
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
    /// token. A wrong PIN regenerates that protocol's key agreement key and counts a failure.
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
            session.protocols[pinProtocol]?.keyAgreementKey = random.p256Key()
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
            if profile.supportsCTAP21 {
                session.resetTokens(random: &random)
            } else {
                session.token.stopUsing()
            }
            return nil
        case .issueToken(let permissions, let rpId, let legacy):
            // CTAP 2.1 §6.5.5.7: a PIN that must change first gives no token.
            if state.forcePINChange { throw .pinInvalid }
            if permissions == .persistentCredentialManagementReadOnly {
                let token = random.bytes(32)
                changes.append(.setPersistentToken(token))
                let encrypted = pinProtocol.encrypt(key: check.sharedSecret, plaintext: token, iv: random.bytes(16))
                return ClientPINResponse(pinUvAuthToken: encrypted)
            }
            if profile.supportsCTAP21 {
                session.resetTokens(random: &random)
            }
            session.token.beginUsing(userIsPresent: false, at: now)
            session.token.permissions = permissions
            session.token.rpId = rpId.map { Array($0.utf8) }
            session.token.issuedByGetPinToken = legacy
            guard let value = session.protocols[pinProtocol]?.token else { throw .other }
            let encrypted = pinProtocol.encrypt(key: check.sharedSecret, plaintext: value, iv: random.bytes(16))
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

    /// The card's PIN policy: the minimum setMinPINLength set (or the profile's), the profile's maximum.
    var pinPolicy: PINPolicy {
        PINPolicy(minimumCodePoints: state.effectiveMinPINLength, maximumCodePoints: profile.maxPINLength)
    }
}

/// A PIN comparison waiting for its retry decrement to be durable (CTAP 2.1 §6.5.5.6, §6.5.5.7).
struct PINCheck {
    /// What follows a correct PIN.
    enum Next {
        case changePIN(newPinEnc: [UInt8])
        case issueToken(permissions: PINUVAuthPermissions, rpId: String?, legacy: Bool)
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
