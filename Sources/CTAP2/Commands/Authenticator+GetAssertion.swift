import CBOR
import CardCrypto
import FIDOWire

/// The state authenticatorGetNextAssertion continues from (CTAP 2.1 §6.3).
struct PendingAssertions {
    var remaining: [AssertionCandidate]
    let request: AssertionRequest
    /// Monotonic time after which getNextAssertion answers NOT_ALLOWED.
    var expiresAt: Double
}

/// A credential that may answer a getAssertion.
struct AssertionCandidate {
    let id: [UInt8]
    let contents: CredentialWrapper.Contents
    let resident: ResidentCredential?
}

/// What every assertion of one getAssertion shares.
struct AssertionRequest {
    let rpIdHash: [UInt8]
    let clientDataHash: [UInt8]
    let userPresent: Bool
    let userVerified: Bool
    let hmacSecret: HMACSecretInput?
}

/// The decrypted hmac-secret input (CTAP 2.1 §12.5).
struct HMACSecretInput {
    let pinProtocol: PINUVAuthProtocol
    let sharedSecret: [UInt8]
    let salts: [UInt8]
}

extension Authenticator {
    /// Seconds a getNextAssertion may follow the previous assertion (CTAP 2.1 §6.3).
    static let nextAssertionWindow = 30.0

    /// authenticatorGetAssertion (CTAP 2.1 §6.2).
    func getAssertion(_ parameters: Parameters) throws(CTAPStatus) -> CBORValue {
        let rpId = try parameters.requiredText(0x01)
        let clientDataHash = try parameters.requiredBytes(0x02)
        let allowList = try CredentialDescriptor.list(try parameters.array(0x03))
        let extensions = try parameters.nested(0x04)
        let options = try parameters.options(0x05)
        let pinUvAuthParam = try parameters.bytes(0x06)
        let protocolNumber = try parameters.unsigned(0x07)

        if let pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = pinUvAuthParam == nil ? nil : try self.pinProtocol(protocolNumber)
        if options["rk"] != nil { throw .unsupportedOption }
        // No built-in user verification method on this card.
        if options["uv"] == true { throw .invalidOption }
        let userPresent = options["up"] ?? true

        var userVerified = false
        if let pinUvAuthParam, let pinProtocol {
            try verifyToken(pinUvAuthParam, message: clientDataHash, protocol: pinProtocol,
                            permission: .getAssertion, rpId: rpId)
            userVerified = true
        }

        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        var candidates: [AssertionCandidate] = []
        if allowList.isEmpty {
            // Without an allow list, credProtect levels 2 and 3 both need user verification.
            candidates = residentCredentials(rpId: rpId)
                .filter { $0.credProtect == 1 || userVerified }
                .map { AssertionCandidate(id: $0.id, contents: contents(of: $0), resident: $0) }
        } else {
            for descriptor in allowList where descriptor.type == "public-key" {
                guard let contents = credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
                if contents.credProtect == 3 && !userVerified { continue }
                let resident = residentIndex[descriptor.id].map { state.residentCredentials[$0] }
                candidates = [AssertionCandidate(id: descriptor.id, contents: contents, resident: resident)]
                break
            }
        }
        guard !candidates.isEmpty else { throw .noCredentials }

        var hmacSecret: HMACSecretInput?
        if profile.supportsHMACSecret, let input = extensions?["hmac-secret"] {
            hmacSecret = try decodeHMACSecret(input)
        }

        if userPresent {
            guard isUserPresent() else { throw .operationDenied }
            // Only an assertion with user presence uses up the token (CTAP 2.1 §6.2.2 step 9);
            // platforms pre-flight allow lists with up=false and the same token.
            if pinUvAuthParam != nil { consumeTokenPermissions() }
        }

        let request = AssertionRequest(rpIdHash: rpIdHash, clientDataHash: clientDataHash, userPresent: userPresent,
                                       userVerified: userVerified, hmacSecret: hmacSecret)
        let first = candidates.removeFirst()
        var response = try assertion(first, request: request, includeUserDetails: userVerified && !candidates.isEmpty)
        if !candidates.isEmpty {
            response[.int(0x05)] = .int(candidates.count + 1)
            volatile.pendingAssertions = PendingAssertions(remaining: candidates, request: request,
                                                           expiresAt: clock() + Self.nextAssertionWindow)
        }
        return .map(response)
    }

    /// authenticatorGetNextAssertion (CTAP 2.1 §6.3).
    func getNextAssertion() throws(CTAPStatus) -> CBORValue {
        guard var pending = volatile.pendingAssertions, !pending.remaining.isEmpty,
              clock() <= pending.expiresAt else {
            volatile.pendingAssertions = nil
            throw .notAllowed
        }
        let next = pending.remaining.removeFirst()
        let response = try assertion(next, request: pending.request, includeUserDetails: pending.request.userVerified)
        pending.expiresAt = clock() + Self.nextAssertionWindow
        volatile.pendingAssertions = pending.remaining.isEmpty ? nil : pending
        return .map(response)
    }

    /// One assertion: bumps the counter durably, then signs authenticatorData ‖ clientDataHash.
    private func assertion(_ candidate: AssertionCandidate, request: AssertionRequest,
                           includeUserDetails: Bool) throws(CTAPStatus) -> CBORMap {
        try persist(.setSignatureCounter(state.signatureCounter &+ 1))
        var flags: AuthenticatorData.Flags = []
        if request.userPresent { flags.insert(.userPresent) }
        if request.userVerified { flags.insert(.userVerified) }
        var extensions: CBORMap?
        if let input = request.hmacSecret, candidate.contents.hmacSecret {
            let credRandom = wrapper.credRandom(privateKey: candidate.contents.privateKey, userVerified: request.userVerified)
            var output = HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[0..<32]))
            if input.salts.count == 64 {
                output += HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[32..<64]))
            }
            let encrypted = input.pinProtocol.encrypt(key: input.sharedSecret, plaintext: output, iv: randomBytes(16))
            extensions = ["hmac-secret": .bytes(encrypted)]
        }
        let authenticatorData = AuthenticatorData(rpIdHash: request.rpIdHash, flags: injectedFlags(flags),
                                                  signatureCounter: state.signatureCounter,
                                                  attestedCredential: nil, extensions: extensions).bytes
        let key = try signingKey(id: candidate.id, scalar: candidate.contents.privateKey)
        let signature = try sign(authenticatorData + request.clientDataHash, with: key)
        var response = CBORMap()
        response[.int(0x01)] = CredentialDescriptor.encode(id: candidate.id)
        response[.int(0x02)] = .bytes(authenticatorData)
        response[.int(0x03)] = .bytes(signature)
        if let resident = candidate.resident {
            response[.int(0x04)] = userEntity(resident, includeDetails: includeUserDetails)
        }
        return response
    }

    /// The user entity returned with a discoverable credential: the ID always; name and display
    /// name only when the user was verified (CTAP 2.1 §6.2.2, user identifiable information).
    func userEntity(_ credential: ResidentCredential, includeDetails: Bool) -> CBORValue {
        var user: CBORMap = ["id": .bytes(credential.userId)]
        if includeDetails {
            if let name = credential.userName { user["name"] = .text(name) }
            if let displayName = credential.userDisplayName { user["displayName"] = .text(displayName) }
        }
        return .map(user)
    }

    /// Discoverable credentials for an RP, most recently created first.
    func residentCredentials(rpId: String) -> [ResidentCredential] {
        (rpIndex[rpId] ?? []).map { state.residentCredentials[$0] }.sorted { $0.serial > $1.serial }
    }

    func contents(of credential: ResidentCredential) -> CredentialWrapper.Contents {
        CredentialWrapper.Contents(privateKey: credential.privateKey, discoverable: true,
                                   hmacSecret: credential.hmacSecret, credProtect: credential.credProtect)
    }

    /// Parses and decrypts the hmac-secret getAssertion input.
    private func decodeHMACSecret(_ input: CBORValue) throws(CTAPStatus) -> HMACSecretInput {
        let input = try Parameters(value: input)
        guard let platformKey = input[0x01] else { throw .missingParameter }
        let saltEnc = try input.requiredBytes(0x02)
        let saltAuth = try input.requiredBytes(0x03)
        let pinProtocol = try self.pinProtocol(try input.unsigned(0x04) ?? 1)
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: volatile.keyAgreementKey, platformKey: platformKey)
        guard pinProtocol.verify(key: sharedSecret, message: saltEnc, signature: saltAuth) else {
            throw .pinAuthInvalid
        }
        guard let salts = pinProtocol.decrypt(key: sharedSecret, ciphertext: saltEnc),
              salts.count == 32 || salts.count == 64 else {
            throw .invalidLength
        }
        return HMACSecretInput(pinProtocol: pinProtocol, sharedSecret: sharedSecret, salts: salts)
    }
}
