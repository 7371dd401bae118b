import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1.2; CTAP 2.0 §5.1 on a CTAP 2.0 profile), in the
    /// specification's order of steps.
    mutating func makeCredential(_ request: MakeCredentialRequest,
                                 changes: inout [CardMutation]) throws(CTAPStatus) -> MakeCredentialResponse {
        let ctap21 = profile.supportsCTAP21
        let rpId = request.rp.id
        guard request.user.id.count <= 64 else { throw .invalidLength }

        // Steps 1–2: the PIN probe, then the protocol of a pinUvAuthParam.
        if let pinUvAuthParam = request.pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = request.pinUvAuthParam == nil ? nil : try requestPINProtocol(request.pinUvAuthProtocol)

        // Step 3: the first of the RP's algorithms the card has.
        let offered = profile.algorithms
        guard let algorithm = request.pubKeyCredParams.lazy.compactMap({ parameters -> SignatureAlgorithm? in
            guard parameters.type == "public-key", offered.contains(parameters.algorithm) else { return nil }
            return SignatureAlgorithm(rawValue: parameters.algorithm)
        }).first else { throw .unsupportedAlgorithm }

        // Steps 4–5: options. On CTAP 2.1 a pinUvAuthParam takes precedence over "uv" (§6.1.2
        // step 5.2): with one, uv is treated as false. CTAP 2.0 has no such rule: "uv" is an
        // option the card does not support, whatever comes with it (2.0 §5.1 step 5).
        let options = request.options
        let residentKey = options[.rk] ?? false
        if options[.uv] == true && (request.pinUvAuthParam == nil || !ctap21) {
            // No built-in user verification: CTAP 2.1 calls it invalid, CTAP 2.0 unsupported.
            throw ctap21 ? .invalidOption : .unsupportedOption
        }
        if options[.up] == false { throw .invalidOption }

        // Steps 6–7: whether a pinUvAuthParam is required.
        if request.pinUvAuthParam == nil {
            if alwaysUvEnabled { throw .puatRequired }
            if isProtectedByUserVerification {
                let uvNotRequired = ctap21 && profile.makeCredUvNotRqd
                if residentKey || !uvNotRequired { throw .puatRequired }
            }
        }

        // Step 9: enterprise attestation (CTAP 2.1 only; a CTAP 2.0 card ignored the member).
        var enterpriseAttested = false
        if let requested = request.enterpriseAttestation {
            guard profile.enterpriseAttestation, state.enterpriseAttestationEnabled, enterpriseAttestation != nil else {
                throw .invalidParameter
            }
            guard case .unsigned(let mode) = requested, mode == 1 || mode == 2 else { throw .invalidOption }
            // Platform-managed (2): any RP; vendor-facilitated (1): the profile's list.
            enterpriseAttested = mode == 2 || profile.enterpriseAttestationRPIDs.contains { Array($0.utf8) == Array(rpId.utf8) }
        }

        // Step 11: the token.
        let userVerified = try userVerified(by: request.pinUvAuthParam, pinProtocol, over: request.clientDataHash,
                                            permission: .makeCredential, rpId: rpId)

        // Step 12: the exclude list.
        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        for descriptor in request.excludeList where descriptor.type == "public-key" {
            guard let existing = credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
            if existing.credProtect == 3 && !userVerified { continue }
            _ = try personIsPresent(rpId: rpId)
            throw .credentialExcluded
        }

        // Extension inputs are read (and type-checked) now, processed after user presence.
        let extensions = if let inputs = request.extensions {
            try MakeCredentialExtensionInputs(inputs, profile: profile)
        } else {
            MakeCredentialExtensionInputs()
        }
        if extensions.largeBlobKey && !residentKey { throw .invalidOption }

        // Step 14: user presence; then the token in use is used up, whether or not this request
        // carried it (step 14.4: no-ops without a token in use).
        guard try isUserPresent(rpId: rpId) else { throw .operationDenied }
        consumeToken()

        var replaced: ResidentCredential?
        if residentKey {
            replaced = memory.residentCredentials(rpId: rpId).first { $0.userId == request.user.id }
            if replaced == nil && state.residentCredentials.count >= profile.residentKeyCapacity {
                throw .keyStoreFull
            }
        }

        // Step 15: extensions.
        var outputs = CBORMap()
        let credProtect = extensions.credProtect ?? 1
        if let level = extensions.credProtect { outputs[extension: .credProtect] = .int(Int(level)) }
        var credBlob: [UInt8]?
        if let blob = extensions.credBlob {
            // A non-discoverable credential ID carries the blob with a one-byte length.
            let fits = blob.count <= min(profile.maxCredBlobLength, CardProfile.longestCredBlob)
            if fits { credBlob = blob }
            outputs[extension: .credBlob] = .bool(fits)
        }
        if extensions.hmacSecret { outputs[extension: .hmacSecret] = true }
        if extensions.minPinLength, isAllowedToReadMinPINLength(rpId) {
            outputs[extension: .minPinLength] = .int(state.effectiveMinPINLength)
        }
        if extensions.thirdPartyPayment { outputs[extension: .thirdPartyPayment] = true }
        if extensions.uvm { outputs[extension: .uvm] = UVMExtension.output(
            userPresent: true, userVerified: userVerified, strongestOnly: profile.behaviour.uvmMethods == .strongest) }

        // Steps 16–18: the key and the credential.
        let seed = random.bytes(32)
        let material: CredentialKeyMaterial = algorithm == .es256 ? .p256Scalar(p256Scalar(fromSeed: seed)) : .seed(algorithm, seed)
        let key = try crypto("making a \(algorithm.name) credential key") { () throws -> CredentialPrivateKey in
            try material.makeKey()
        }
        let contents = CredentialWrapper.Contents(key: material, discoverable: residentKey, hmacSecret: extensions.hmacSecret,
                                                  credProtect: credProtect, credBlob: residentKey ? nil : credBlob,
                                                  thirdPartyPayment: extensions.thirdPartyPayment && !residentKey)
        let credentialId = memory.wrapper.padded(memory.wrapper.wrap(contents, rpIdHash: rpIdHash, iv: random.bytes(16)),
                                                 to: profile.behaviour.credentialIdLength)
        if extensions.hmacSecret, let input = extensions.hmacSecretMC {
            // The PRF of the key material later assertions use: a stored credential's own key.
            let assertionMaterial = residentKey
                ? CredentialKeyMaterial(algorithm: algorithm, privateKeyBytes: key.privateKeyBytes) : material
            let decoded = try decodeHMACSecret(input)
            outputs[extension: .hmacSecretMakeCredential] = .bytes(hmacSecretOutput(decoded, key: assertionMaterial, userVerified: userVerified))
        }
        let largeBlobKey = extensions.largeBlobKey ? random.bytes(32) : nil

        let counter = takeSignatureCounter(changes: &changes)
        if residentKey {
            if let replaced { changes.append(.removeCredential(id: replaced.id)) }
            changes.append(.addCredential(ResidentCredential(
                id: credentialId, rpId: rpId, rpName: profile.keeps("rp.name") ? request.rp.name : nil, userId: request.user.id,
                userName: profile.keeps("user.name") ? request.user.name : nil,
                userDisplayName: profile.keeps("user.displayName") ? request.user.displayName : nil, algorithm: algorithm.rawValue,
                privateKey: key.privateKeyBytes, credProtect: credProtect, hmacSecret: extensions.hmacSecret,
                serial: state.nextCredentialSerial, credBlob: credBlob, largeBlobKey: largeBlobKey,
                thirdPartyPayment: extensions.thirdPartyPayment)))
        }

        var flags: AuthenticatorData.Flags = [.userPresent, .attestedCredentialData]
        if userVerified { flags.insert(.userVerified) }
        var authenticatorData = AuthenticatorData(
            rpIdHash: rpIdHash, flags: injectedFlags(flags), signatureCounter: counter,
            attestedCredential: .init(aaguid: aaguid, credentialId: credentialId, publicKey: key.publicKey),
            extensions: outputs.count > 0 ? outputs : nil
        ).bytes
        // The departure uvmTrailingByte: a stray byte after the extensions map (it is signed too).
        if profile.departures.uvmTrailingByte && outputs[extension: .uvm] != nil { authenticatorData.append(0) }

        let (format, statement) = try attestationStatement(
            authenticatorData: authenticatorData, clientDataHash: request.clientDataHash, credentialKey: key,
            enterprise: enterpriseAttested)
        return MakeCredentialResponse(fmt: format, authData: authenticatorData, attStmt: statement,
                                      epAtt: enterpriseAttested ? true : nil, largeBlobKey: largeBlobKey)
    }

    /// The attestation statement for the profile's format (WebAuthn §8.2 packed, §8.7 none); an
    /// enterprise attestation is packed with the card's enterprise certificate.
    private mutating func attestationStatement(authenticatorData: [UInt8], clientDataHash: [UInt8],
                                               credentialKey: CredentialPrivateKey,
                                               enterprise: Bool) throws(CTAPStatus) -> (String, CBORValue) {
        let signed = authenticatorData + clientDataHash
        if enterprise, let identity = enterpriseAttestation {
            return try packed(signed, identity: identity)
        }
        switch profile.attestation {
        case .none:
            return ("none", .map([:]))
        case .self:
            let signature = try sign(signed, with: credentialKey)
            return ("packed", .map(["alg": .int(credentialKey.algorithm.rawValue), "sig": .bytes(signature)]))
        case .packed:
            return try packed(signed, identity: attestation)
        }
    }

    private mutating func packed(_ signed: [UInt8], identity: AttestationIdentity) throws(CTAPStatus) -> (String, CBORValue) {
        let signature = try sign(signed, with: identity.privateKey)
        return ("packed", .map([
            "alg": .int(SignatureAlgorithm.es256.rawValue),
            "sig": .bytes(signature),
            "x5c": .array([.bytes(identity.certificate.der)]),
        ]))
    }

    /// A P-256 scalar from a 32-byte seed: the seed itself (as the card always drew its keys),
    /// or, in the rare case it is not a valid scalar, the first valid draw of the seed's stream.
    func p256Scalar(fromSeed seed: [UInt8]) -> [UInt8] {
        if P256PrivateKey.isValidScalar(seed) { return seed }
        var stream = CardRandom(.seeded(seed))
        return stream.p256Key().rawScalar
    }

    /// Whether the minPinLength extension may tell `rpId` the minimum PIN length: RP IDs
    /// setMinPINLength allowed, and the profile's pre-configured ones.
    func isAllowedToReadMinPINLength(_ rpId: String) -> Bool {
        let requested = Array(rpId.utf8)
        return (state.minPinLengthRPIDs + profile.minPinLengthRPIDs).contains { Array($0.utf8) == requested }
    }
}
