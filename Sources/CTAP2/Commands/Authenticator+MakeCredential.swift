import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1), ES256 only.
    mutating func makeCredential(_ request: MakeCredentialRequest,
                                 changes: inout [CardMutation]) throws(CTAPStatus) -> MakeCredentialResponse {
        let rpId = request.rp.id
        guard request.user.id.count <= 64 else { throw .invalidLength }
        // This card has no enterprise attestation.
        if request.enterpriseAttestation != nil { throw .invalidParameter }

        if let pinUvAuthParam = request.pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = request.pinUvAuthParam == nil ? nil : try self.pinProtocol(request.pinUvAuthProtocol)

        guard request.pubKeyCredParams.contains(where: { $0.type == "public-key" && $0.algorithm == -7 }) else {
            throw .unsupportedAlgorithm
        }

        let options = request.options
        let residentKey = options["rk"] ?? false
        if options["up"] == false { throw .invalidOption }
        // No built-in user verification method on this card.
        if options["uv"] == true { throw .invalidOption }

        var userVerified = false
        if let pinUvAuthParam = request.pinUvAuthParam, let pinProtocol {
            try verifyToken(pinUvAuthParam, message: request.clientDataHash, protocol: pinProtocol,
                            permission: .makeCredential, rpId: rpId)
            userVerified = true
        } else if state.isPINSet {
            let uvNotRequired = profile.supportsCTAP21 && profile.makeCredUvNotRqd
            if residentKey || !uvNotRequired { throw .puatRequired }
        }

        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        for descriptor in request.excludeList where descriptor.type == "public-key" {
            guard let existing = memory.credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
            if existing.credProtect == 3 && !userVerified { continue }
            _ = personIsPresent()
            throw .credentialExcluded
        }

        var credProtect: UInt8 = 1
        var hmacSecret = false
        var extensionOutputs = CBORMap()
        if let extensions = request.extensions {
            if profile.supportsCredProtect, let requested = extensions[text: "credProtect"] {
                guard case .unsigned(let level) = requested else { throw .cborUnexpectedType }
                if (1...3).contains(level) {
                    credProtect = UInt8(level)
                    extensionOutputs["credProtect"] = .unsigned(level)
                }
            }
            if profile.supportsHMACSecret, let requested = extensions[text: "hmac-secret"] {
                guard case .bool(let wanted) = requested else { throw .cborUnexpectedType }
                if wanted {
                    hmacSecret = true
                    extensionOutputs["hmac-secret"] = true
                }
            }
        }

        guard isUserPresent() else { throw .operationDenied }

        var replaced: ResidentCredential?
        if residentKey {
            replaced = memory.residentCredentials(rpId: rpId).first { $0.userId == request.user.id }
            if replaced == nil && state.residentCredentials.count >= profile.residentKeyCapacity {
                throw .keyStoreFull
            }
        }

        let privateKey = random.p256Key()
        let contents = CredentialWrapper.Contents(privateKey: privateKey.rawScalar, discoverable: residentKey,
                                                  hmacSecret: hmacSecret, credProtect: credProtect)
        let credentialId = memory.wrapper.wrap(contents, rpIdHash: rpIdHash, iv: random.bytes(16))

        let counter = state.signatureCounter &+ 1
        changes.append(.setSignatureCounter(counter))
        if residentKey {
            if let replaced { changes.append(.removeCredential(id: replaced.id)) }
            changes.append(.addCredential(ResidentCredential(
                id: credentialId, rpId: rpId, rpName: request.rp.name, userId: request.user.id,
                userName: request.user.name, userDisplayName: request.user.displayName,
                privateKey: contents.privateKey, credProtect: credProtect, hmacSecret: hmacSecret,
                serial: state.nextCredentialSerial)))
        }
        if request.pinUvAuthParam != nil { consumeTokenPermissions() }

        var flags: AuthenticatorData.Flags = [.userPresent, .attestedCredentialData]
        if userVerified { flags.insert(.userVerified) }
        let authenticatorData = AuthenticatorData(
            rpIdHash: rpIdHash, flags: injectedFlags(flags), signatureCounter: counter,
            attestedCredential: .init(aaguid: aaguid, credentialId: credentialId, publicKey: privateKey.publicKey),
            extensions: extensionOutputs.count > 0 ? extensionOutputs : nil
        ).bytes

        let (format, statement) = try attestationStatement(
            authenticatorData: authenticatorData, clientDataHash: request.clientDataHash, credentialKey: privateKey)
        return MakeCredentialResponse(fmt: format, authData: authenticatorData, attStmt: statement)
    }

    /// The attestation statement for the profile's format (WebAuthn §8.2 packed, §8.7 none).
    private mutating func attestationStatement(authenticatorData: [UInt8], clientDataHash: [UInt8],
                                               credentialKey: P256PrivateKey) throws(CTAPStatus) -> (String, CBORValue) {
        let signed = authenticatorData + clientDataHash
        switch profile.attestation {
        case .none:
            return ("none", .map([:]))
        case .self:
            let signature = try sign(signed, with: credentialKey)
            return ("packed", .map(["alg": .int(-7), "sig": .bytes(signature)]))
        case .packed:
            let signature = try sign(signed, with: attestation.privateKey)
            return ("packed", .map([
                "alg": .int(-7),
                "sig": .bytes(signature),
                "x5c": .array([.bytes(attestation.certificate.der)]),
            ]))
        }
    }
}
