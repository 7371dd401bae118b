import CBOR
import COSE
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5.5; CTAP 2.0 §5.5 on a CTAP 2.0 profile).
    mutating func clientPIN(_ request: ClientPINRequest,
                            changes: inout [CardMutation]) throws(CTAPStatus) -> ClientPINResponse? {
        guard let subcommand = request.subcommand else { throw .invalidSubcommand }
        if subcommand == .getPINRetries {
            if profile.departures.pinRetriesNeedProtocol && request.pinUvAuthProtocol == nil { throw .missingParameter }
            // A card with no PIN has no retries to count: PIN_NOT_SET, as current authenticators
            // answer and python-fido2's device suite expects (see README, "Card profiles"); a
            // profile may answer the retries a PIN will have (behaviour.pinRetriesWithoutPIN).
            guard state.isPINSet || profile.behaviour.pinRetriesWithoutPIN == .retries else { throw .pinNotSet }
            return ClientPINResponse(pinRetries: state.pinRetries,
                                     powerCycleState: profile.supportsCTAP21 ? session.consecutivePINFailures >= 3 : nil)
        }
        // Every subcommand first checks that its mandatory parameters are present (step 1:
        // MISSING_PARAMETER), then that pinUvAuthProtocol is supported (step 2: INVALID_PARAMETER),
        // and only then anything else (CTAP 2.1 §6.5.5.4–§6.5.5.7). A card with the departure
        // pinStateBeforeMembers answers PIN_NOT_SET before step 1.
        if profile.departures.pinStateBeforeMembers && !state.isPINSet
            && [.changePIN, .getPinToken, .getPinUvAuthTokenUsingPinWithPermissions].contains(subcommand) {
            throw .pinNotSet
        }
        switch subcommand {
        case .getPINRetries:
            preconditionFailure("answered above")
        case .getKeyAgreement:
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            return ClientPINResponse(keyAgreement: COSEPublicKey.keyAgreement(keyAgreementKey(pinProtocol).publicKey).cbor)
        case .setPIN:
            let members = try ClientPINRequest.SetPIN(request)
            try setPIN(members, try self.pinProtocol(request.pinUvAuthProtocol), changes: &changes)
            return nil
        case .changePIN:
            let members = try ClientPINRequest.ChangePIN(request)
            try changePIN(members, try self.pinProtocol(request.pinUvAuthProtocol), changes: &changes)
            return nil
        case .getPinToken:
            let members = try ClientPINRequest.PINToken(request)
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            // §6.5.5.7.1 steps 3–4: permissions and rpId belong to the newer subcommand.
            if profile.pinUvAuthToken, request.permissions != nil || request.rpId != nil {
                throw .invalidParameter
            }
            return try issueToken(members, pinProtocol, permissions: Self.getPinTokenPermissions, rpId: nil, legacy: true,
                                  changes: &changes)
        case .getPinUvAuthTokenUsingPinWithPermissions where profile.pinUvAuthToken:
            let members = try ClientPINRequest.PINToken(request)
            guard let number = request.permissions else { throw .missingParameter }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            let asked = try permissionsToGrant(number, rpId: request.rpId)
            return try issueToken(members, pinProtocol, permissions: asked, rpId: request.rpId, legacy: false,
                                  changes: &changes)
        case .getPinUvAuthTokenUsingUvWithPermissions where profile.behaviour.uvTokenWithoutUV == .notAllowed:
            throw .notAllowed
        case .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries, .getPinUvAuthTokenUsingPinWithPermissions:
            // No built-in user verification on this card.
            throw .invalidSubcommand
        }
    }

    /// getPinUvAuthTokenUsingPinWithPermissions' permissions (CTAP 2.1 §6.5.5.7.2 steps 3–4, CTAP
    /// 2.2's pcmr): 0 is INVALID_PARAMETER; "Undefined permissions present in the permissions
    /// parameter are ignored" (bits no version defines: 0x80 and above); a permission the card
    /// cannot grant, or pcmr with "any other pinUvAuthToken permission", is UNAUTHORIZED_PERMISSION.
    private func permissionsToGrant(_ number: UInt64, rpId: String?) throws(CTAPStatus) -> PINUVAuthPermissions {
        guard number != 0 else { throw .invalidParameter }
        let asked = PINUVAuthPermissions(rawValue: UInt8(truncatingIfNeeded: number)).intersection(.defined)
        guard asked.isSubset(of: grantablePermissions) || profile.departures.grantsUnsupportedPermissions else {
            throw .unauthorizedPermission
        }
        if asked.contains(.persistentCredentialManagementReadOnly) && asked != .persistentCredentialManagementReadOnly {
            throw .unauthorizedPermission
        }
        // mc and ga are for one RP, which the platform must name (CTAP 2.1 §6.5.5.7, the
        // permissions table: RP ID "Required"); absent, it is a missing parameter. Only
        // getPinToken's token (mc and ga, no RP) is bound by its first use.
        if !asked.isDisjoint(with: [.makeCredential, .getAssertion]) && rpId == nil { throw .missingParameter }
        return asked
    }

    /// The default permissions getPinToken assigns (CTAP 2.1 §6.5.5.7.1): mc and ga.
    static let getPinTokenPermissions: PINUVAuthPermissions = [.makeCredential, .getAssertion]

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
        guard !state.isPINSet else { throw profile.departures.setPINAgainPUATRequired ? .puatRequired : .pinAuthInvalid }
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
        running?.suspendedPINCheck = PINCheck(pinHashEnc: pinHashEnc, sharedSecret: sharedSecret, pinProtocol: pinProtocol,
                                     next: next, environment: nil)
    }

    /// The PIN check once the decrement is durable: compares, then changes the PIN or issues the
    /// token. A wrong PIN regenerates that protocol's key agreement key and counts a failure.
    mutating func resume(_ check: PINCheck) -> CommandOutcome {
        let rollback = CommandOutcome.Rollback(session: session, random: random)
        if let environment = check.environment {
            running = RunningCommand(command: .ctap(CTAPCommand.clientPIN.rawValue), environment: environment)
        }
        defer { running = nil }
        var changes: [CardMutation] = []
        do {
            let body = try finishPINCheck(check, changes: &changes)
            let response = [CTAPStatus.ok.rawValue] + (body?.encoded() ?? [])
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
            // §6.5.5.6 step 13: "If the forcePINChange member of the authenticatorGetInfo response
            // is true and LEFT(SHA-256(newPin), 16) is equal to its internal stored
            // LEFT(SHA-256(curPin), 16) then authenticator returns CTAP2_ERR_PIN_POLICY_VIOLATION."
            if state.forcePINChange, let stored = state.pinHash, ConstantTime.equals(pin.hash, stored) {
                throw .pinPolicyViolation
            }
            changes.append(.setPIN(hash: pin.hash, codePoints: pin.codePoints))
            if profile.supportsCTAP21 {
                session.resetTokens(random: &random)
            } else {
                session.token.stopUsing()
            }
            return nil
        case .issueToken(let permissions, let rpId, let legacy):
            // Step 11: a PIN that must change first gives no token. getPinToken: "authenticator
            // returns CTAP2_ERR_PIN_INVALID error" (§6.5.5.7.1); getPinUvAuthTokenUsingPinWithPermissions:
            // "authenticator returns CTAP2_ERR_PIN_POLICY_VIOLATION" (§6.5.5.7.2).
            if state.forcePINChange { throw legacy ? .pinInvalid : .pinPolicyViolation }
            if permissions == .persistentCredentialManagementReadOnly {
                // CTAP 2.2 §6.5.5.7.2 step 12: "Assign pcmr permission to the persistentPinUvAuthToken"
                // and return it: the card's one persistent token (made on the first request, new
                // only after a PIN change or a reset), so every platform holding it keeps it.
                let token = state.persistentToken ?? random.bytes(32)
                if state.persistentToken == nil { changes.append(.setPersistentToken(token)) }
                let encrypted = pinProtocol.encrypt(key: check.sharedSecret, plaintext: token, iv: random.bytes(16))
                return ClientPINResponse(pinUvAuthToken: encrypted)
            }
            // A card with the departure oldTokenStaysValid keeps the token's value, so a token
            // issued before still verifies.
            if profile.supportsCTAP21 && !profile.departures.oldTokenStaysValid {
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
