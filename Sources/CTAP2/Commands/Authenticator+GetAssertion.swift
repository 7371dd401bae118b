import CBOR
import CardCrypto
import FIDOWire

/// The state authenticatorGetNextAssertion continues from (CTAP 2.1 §6.3).
struct PendingAssertions: Sendable {
    var remaining: [AssertionCandidate]
    let request: AssertionRequest
    /// After this instant getNextAssertion answers NOT_ALLOWED.
    var expiresAt: CardInstant
}

/// A credential that may answer a getAssertion.
struct AssertionCandidate: Sendable {
    let id: [UInt8]
    let contents: CredentialWrapper.Contents
    let resident: ResidentCredential?
}

/// What every assertion of one getAssertion shares.
struct AssertionRequest: Sendable {
    let rpIdHash: [UInt8]
    let clientDataHash: [UInt8]
    let userPresent: Bool
    let userVerified: Bool
    let hmacSecret: HMACSecretInput?
}

/// The decrypted hmac-secret input (CTAP 2.1 §12.5).
struct HMACSecretInput: Sendable {
    let pinProtocol: PINUVAuthProtocol
    let sharedSecret: [UInt8]
    let salts: [UInt8]
}

extension Authenticator {
    /// How long a getNextAssertion may follow the previous assertion (CTAP 2.1 §6.3).
    static let nextAssertionWindow = Duration.seconds(30)

    /// authenticatorGetAssertion (CTAP 2.1 §6.2).
    mutating func getAssertion(_ request: GetAssertionRequest,
                               changes: inout [CardMutation]) throws(CTAPStatus) -> GetAssertionResponse {
        let rpId = request.rpId
        if let pinUvAuthParam = request.pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = request.pinUvAuthParam == nil ? nil : try self.pinProtocol(request.pinUvAuthProtocol)
        let options = request.options
        if options["rk"] != nil { throw .unsupportedOption }
        // No built-in user verification method on this card.
        if options["uv"] == true { throw .invalidOption }
        let userPresent = options["up"] ?? true

        var userVerified = false
        if let pinUvAuthParam = request.pinUvAuthParam, let pinProtocol {
            try verifyToken(pinUvAuthParam, message: request.clientDataHash, protocol: pinProtocol,
                            permission: .getAssertion, rpId: rpId)
            userVerified = true
        }

        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        var candidates: [AssertionCandidate] = []
        if request.allowList.isEmpty {
            // Without an allow list, credProtect levels 2 and 3 both need user verification.
            candidates = memory.residentCredentials(rpId: rpId)
                .filter { $0.credProtect == 1 || userVerified }
                .map { AssertionCandidate(id: $0.id, contents: $0.contents, resident: $0) }
        } else {
            for descriptor in request.allowList where descriptor.type == "public-key" {
                guard let contents = memory.credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
                if contents.credProtect == 3 && !userVerified { continue }
                let resident = memory.residentCredential(id: descriptor.id)
                candidates = [AssertionCandidate(id: descriptor.id, contents: contents, resident: resident)]
                break
            }
        }
        guard !candidates.isEmpty else { throw .noCredentials }

        var hmacSecret: HMACSecretInput?
        if profile.supportsHMACSecret, let input = request.extensions?[text: "hmac-secret"] {
            hmacSecret = try decodeHMACSecret(input)
        }

        if userPresent {
            guard isUserPresent() else { throw .operationDenied }
            // Only an assertion with user presence uses up the token (CTAP 2.1 §6.2.2 step 9);
            // platforms pre-flight allow lists with up=false and the same token.
            if request.pinUvAuthParam != nil { consumeTokenPermissions() }
        }

        let shared = AssertionRequest(rpIdHash: rpIdHash, clientDataHash: request.clientDataHash,
                                      userPresent: userPresent, userVerified: userVerified, hmacSecret: hmacSecret)
        let first = candidates.removeFirst()
        var response = try assertion(first, request: shared, includeUserDetails: userVerified && !candidates.isEmpty,
                                     changes: &changes)
        if !candidates.isEmpty {
            response.numberOfCredentials = candidates.count + 1
            session.pendingAssertions = PendingAssertions(remaining: candidates, request: shared,
                                                          expiresAt: now.advanced(by: Self.nextAssertionWindow))
        }
        return response
    }

    /// authenticatorGetNextAssertion (CTAP 2.1 §6.3).
    mutating func getNextAssertion(changes: inout [CardMutation]) throws(CTAPStatus) -> GetAssertionResponse {
        guard var pending = session.pendingAssertions, !pending.remaining.isEmpty, now <= pending.expiresAt else {
            session.pendingAssertions = nil
            throw .notAllowed
        }
        let next = pending.remaining.removeFirst()
        let response = try assertion(next, request: pending.request, includeUserDetails: pending.request.userVerified,
                                     changes: &changes)
        pending.expiresAt = now.advanced(by: Self.nextAssertionWindow)
        session.pendingAssertions = pending.remaining.isEmpty ? nil : pending
        return response
    }

    /// One assertion: the next counter value (made durable before the answer), then a signature
    /// over authenticatorData ‖ clientDataHash.
    private mutating func assertion(_ candidate: AssertionCandidate, request: AssertionRequest,
                                    includeUserDetails: Bool,
                                    changes: inout [CardMutation]) throws(CTAPStatus) -> GetAssertionResponse {
        let counter = state.signatureCounter &+ 1
        changes.append(.setSignatureCounter(counter))
        var flags: AuthenticatorData.Flags = []
        if request.userPresent { flags.insert(.userPresent) }
        if request.userVerified { flags.insert(.userVerified) }
        var extensions: CBORMap?
        if let input = request.hmacSecret, candidate.contents.hmacSecret {
            let credRandom = memory.wrapper.credRandom(privateKey: candidate.contents.privateKey,
                                                       userVerified: request.userVerified)
            var output = HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[0..<32]))
            if input.salts.count == 64 {
                output += HMACSHA256.authenticate(key: credRandom, data: Array(input.salts[32..<64]))
            }
            let encrypted = input.pinProtocol.encrypt(key: input.sharedSecret, plaintext: output, iv: random.bytes(16))
            extensions = ["hmac-secret": .bytes(encrypted)]
        }
        let authenticatorData = AuthenticatorData(rpIdHash: request.rpIdHash, flags: injectedFlags(flags),
                                                  signatureCounter: counter,
                                                  attestedCredential: nil, extensions: extensions).bytes
        let key = try signingKey(id: candidate.id, scalar: candidate.contents.privateKey)
        let signature = try sign(authenticatorData + request.clientDataHash, with: key)
        return GetAssertionResponse(
            credential: CredentialDescriptor(id: candidate.id), authData: authenticatorData, signature: signature,
            user: candidate.resident.map { $0.userEntity(includeDetails: includeUserDetails) })
    }

    /// Parses and decrypts the hmac-secret getAssertion input.
    private mutating func decodeHMACSecret(_ input: CBORValue) throws(CTAPStatus) -> HMACSecretInput {
        let input = try RequestMap<HMACSecretInputKey>(value: input)
        guard let platformKey = input[.keyAgreement] else { throw .missingParameter }
        let saltEnc = try input.requiredBytes(.saltEnc)
        let saltAuth = try input.requiredBytes(.saltAuth)
        let pinProtocol = try self.pinProtocol(try input.unsigned(.pinUvAuthProtocol) ?? 1)
        let sharedSecret = try pinProtocol.sharedSecret(privateKey: session.keyAgreementKey, platformKey: platformKey)
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

extension ResidentCredential {
    /// What a credential ID of this credential would carry.
    var contents: CredentialWrapper.Contents {
        CredentialWrapper.Contents(privateKey: privateKey, discoverable: true, hmacSecret: hmacSecret,
                                   credProtect: credProtect)
    }

    /// The user entity returned with a discoverable credential: the ID always; name and display
    /// name only when the user was verified (CTAP 2.1 §6.2.2, user identifiable information).
    func userEntity(includeDetails: Bool) -> CredentialUser {
        includeDetails ? CredentialUser(id: userId, name: userName, displayName: userDisplayName) : CredentialUser(id: userId)
    }
}
