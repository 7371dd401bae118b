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
    /// hmac-secret's input decrypted (its salts), once presence was given.
    let hmacSecret: HMACSecretInput?
    /// The extension inputs, which each assertion answers for its credential.
    let extensions: GetAssertionExtensionInputs
}

extension Authenticator {
    /// How long a getNextAssertion may follow the previous assertion (CTAP 2.1 §6.3).
    static let nextAssertionWindow = Duration.seconds(30)

    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2; CTAP 2.0 §5.2 on a CTAP 2.0 profile).
    mutating func getAssertion(_ request: GetAssertionRequest,
                               changes: inout [CardMutation]) throws(CTAPStatus) -> GetAssertionResponse {
        let ctap21 = profile.supportsCTAP21
        let rpId = request.rpId
        if let pinUvAuthParam = request.pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = request.pinUvAuthParam == nil ? nil : try requestPINProtocol(request.pinUvAuthProtocol)

        // Options: on CTAP 2.1 a pinUvAuthParam takes precedence over "uv" (§6.2.2 step 4.2; CTAP
        // 2.0 has no such rule); "rk" is not an option of getAssertion (CTAP 2.1: unsupported;
        // CTAP 2.0: not valid for the command).
        let options = request.options
        // The profile's departures getAssertionIgnoresUv and rkOptionInvalid break these two rules.
        let departures = profile.departures
        if options[.uv] == true && (request.pinUvAuthParam == nil || !ctap21) && !departures.getAssertionIgnoresUv {
            throw ctap21 ? .invalidOption : .unsupportedOption
        }
        if options[.rk] != nil { throw ctap21 && !departures.rkOptionInvalid ? .unsupportedOption : .invalidOption }
        let userPresent = options[.up] ?? true
        if alwaysUvEnabled && userPresent && request.pinUvAuthParam == nil { throw .puatRequired }

        let userVerified = try userVerified(by: request.pinUvAuthParam, pinProtocol, over: request.clientDataHash,
                                            permission: .getAssertion, rpId: rpId)

        let rpIdHash = rpIdHash(rpId)
        var candidates: [AssertionCandidate] = []
        if request.allowList.isEmpty {
            // Without an allow list, credProtect levels 2 and 3 both need user verification.
            candidates = memory.residentCredentials(rpId: rpId)
                .filter { $0.credProtect == 1 || userVerified }
                .map { AssertionCandidate(id: $0.id, contents: $0.contents, resident: $0) }
        } else {
            for descriptor in request.allowList where descriptor.type == "public-key" {
                guard let contents = credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
                if contents.credProtect == 3 && !userVerified { continue }
                let resident = memory.residentCredential(id: descriptor.id)
                candidates = [AssertionCandidate(id: descriptor.id, contents: resident?.contents ?? contents,
                                                 resident: resident)]
                break
            }
        }
        guard !candidates.isEmpty else { throw .noCredentials }
        // Not read when absent: reading needs the profile, a copy of which costs an assertion more
        // than the rest of its extension handling.
        let extensions = if let inputs = request.extensions {
            try GetAssertionExtensionInputs(inputs, profile: profile)
        } else {
            GetAssertionExtensionInputs()
        }

        if userPresent {
            guard try isUserPresent(rpId: rpId) else { throw .operationDenied }
            // Only an assertion with user presence uses up the token in use (CTAP 2.1 §6.2.2 step
            // 9.4), with or without a pinUvAuthParam; platforms pre-flight allow lists with up=false.
            consumeToken()
        }

        // Extensions are processed once presence was given (§6.2.2 step 10). hmac-secret derives a
        // secret only with presence: "If "up" is set to false, authenticator returns
        // CTAP2_ERR_UNSUPPORTED_OPTION." (CTAP 2.1 §12.5, authenticator getAssertion processing).
        if extensions.hmacSecret != nil && !userPresent { throw .unsupportedOption }
        let hmacSecret = try extensions.hmacSecret.map { input throws(CTAPStatus) in try decodeHMACSecret(input) }
        let shared = AssertionRequest(
            rpIdHash: rpIdHash, clientDataHash: request.clientDataHash, userPresent: userPresent,
            userVerified: userVerified, hmacSecret: hmacSecret, extensions: extensions)
        let first = candidates.removeFirst()
        let details = !candidates.isEmpty || profile.behaviour.singleAccountUser == .details
        var response = try assertion(first, request: shared, includeUserDetails: userVerified && details,
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

    /// One assertion: the next counter value (made durable ahead, see ``takeSignatureCounter``),
    /// the extension outputs, then a signature over authenticatorData ‖ clientDataHash.
    private mutating func assertion(_ candidate: AssertionCandidate, request: AssertionRequest,
                                    includeUserDetails: Bool,
                                    changes: inout [CardMutation]) throws(CTAPStatus) -> GetAssertionResponse {
        let counter = takeSignatureCounter(changes: &changes)
        var flags: AuthenticatorData.Flags = []
        if request.userPresent { flags.insert(.userPresent) }
        if request.userVerified { flags.insert(.userVerified) }
        var extensions = CBORMap()
        if request.extensions.getCredBlob {
            extensions[extension: .credBlob] = .bytes(candidate.contents.credBlob ?? [])
        }
        if let input = request.hmacSecret, candidate.contents.hmacSecret {
            extensions[extension: .hmacSecret] = .bytes(hmacSecretOutput(input, key: candidate.contents.key,
                                                                         userVerified: request.userVerified))
        }
        if request.extensions.thirdPartyPayment {
            extensions[extension: .thirdPartyPayment] = .bool(candidate.contents.thirdPartyPayment)
        }
        if request.extensions.uvm {
            extensions[extension: .uvm] = UVMExtension.output(userPresent: request.userPresent,
                                                              userVerified: request.userVerified,
                                                              strongestOnly: profile.behaviour.uvmMethods == .strongest)
        }
        let authenticatorData = AuthenticatorData(rpIdHash: request.rpIdHash, flags: injectedFlags(flags),
                                                  signatureCounter: counter, attestedCredential: nil,
                                                  extensions: extensions.count > 0 ? extensions : nil).bytes
        let key = try signingKey(id: candidate.id, material: candidate.contents.key)
        let signature = try sign(authenticatorData + request.clientDataHash, with: key)
        return GetAssertionResponse(
            credential: CredentialDescriptor(id: candidate.id), authData: authenticatorData, signature: signature,
            user: candidate.resident.map { $0.userEntity(includeDetails: includeUserDetails) },
            largeBlobKey: request.extensions.largeBlobKey ? candidate.resident?.largeBlobKey : nil)
    }
}

extension ResidentCredential {
    /// What a credential ID of this credential carries, with what the card stores beside it.
    var contents: CredentialWrapper.Contents {
        let algorithm = SignatureAlgorithm(rawValue: self.algorithm) ?? .es256
        return CredentialWrapper.Contents(key: CredentialKeyMaterial(algorithm: algorithm, privateKeyBytes: privateKey),
                                          discoverable: true, hmacSecret: hmacSecret, credProtect: credProtect,
                                          credBlob: credBlob, thirdPartyPayment: thirdPartyPayment)
    }

    /// The user entity returned with a discoverable credential: the ID always; name and display
    /// name only when the user was verified (CTAP 2.1 §6.2.2, user identifiable information).
    func userEntity(includeDetails: Bool) -> CredentialUser {
        includeDetails ? CredentialUser(id: userId, name: userName, displayName: userDisplayName) : CredentialUser(id: userId)
    }
}
