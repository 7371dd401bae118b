import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1), ES256 only.
    func makeCredential(_ parameters: Parameters) throws(CTAPStatus) -> CBORValue {
        let clientDataHash = try parameters.requiredBytes(0x01)
        let rp = try parameters.requiredNested(0x02)
        let user = try parameters.requiredNested(0x03)
        guard let credentialParameters = try parameters.array(0x04) else { throw .missingParameter }
        let excludeList = try CredentialDescriptor.list(try parameters.array(0x05))
        let extensions = try parameters.nested(0x06)
        let options = try parameters.options(0x07)
        let pinUvAuthParam = try parameters.bytes(0x08)
        let protocolNumber = try parameters.unsigned(0x09)
        guard let rpId = try rp.text(named: "id") else { throw .missingParameter }
        let rpName = try rp.text(named: "name")
        guard let userId = try user.bytes(named: "id") else { throw .missingParameter }
        let userName = try user.text(named: "name")
        let userDisplayName = try user.text(named: "displayName")
        guard userId.count <= 64 else { throw .invalidLength }
        // This card has no enterprise attestation.
        if parameters[0x0A] != nil { throw .invalidParameter }

        if let pinUvAuthParam, pinUvAuthParam.isEmpty { try answerPINProbe() }
        let pinProtocol = pinUvAuthParam == nil ? nil : try self.pinProtocol(protocolNumber)

        var es256 = false
        for entry in credentialParameters {
            let entry = try Parameters(value: entry)
            guard let type = try entry.text(named: "type") else { throw .missingParameter }
            guard let algorithm = entry["alg"] else { throw .missingParameter }
            guard let number = algorithm.intValue else { throw .cborUnexpectedType }
            if type == "public-key" && number == -7 { es256 = true }
        }
        guard es256 else { throw .unsupportedAlgorithm }

        let residentKey = options["rk"] ?? false
        if options["up"] == false { throw .invalidOption }
        // No built-in user verification method on this card.
        if options["uv"] == true { throw .invalidOption }

        var userVerified = false
        if let pinUvAuthParam, let pinProtocol {
            try verifyToken(pinUvAuthParam, message: clientDataHash, protocol: pinProtocol,
                            permission: .makeCredential, rpId: rpId)
            userVerified = true
        } else if state.isPINSet {
            let uvNotRequired = profile.supportsCTAP21 && profile.makeCredUvNotRqd
            if residentKey || !uvNotRequired { throw .puatRequired }
        }

        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        for descriptor in excludeList where descriptor.type == "public-key" {
            guard let existing = credential(id: descriptor.id, rpIdHash: rpIdHash) else { continue }
            if existing.credProtect == 3 && !userVerified { continue }
            _ = userPresence()
            throw .credentialExcluded
        }

        var credProtect: UInt8 = 1
        var hmacSecret = false
        var extensionOutputs = CBORMap()
        if let extensions {
            if profile.supportsCredProtect, let requested = extensions["credProtect"] {
                guard case .unsigned(let level) = requested else { throw .cborUnexpectedType }
                if (1...3).contains(level) {
                    credProtect = UInt8(level)
                    extensionOutputs["credProtect"] = .unsigned(level)
                }
            }
            if profile.supportsHMACSecret, let requested = extensions["hmac-secret"] {
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
            replaced = residentCredentials(rpId: rpId).first { $0.userId == userId }
            if replaced == nil && state.residentCredentials.count >= profile.residentKeyCapacity {
                throw .keyStoreFull
            }
        }

        let privateKey = newPrivateKey()
        let contents = CredentialWrapper.Contents(privateKey: privateKey.rawScalar, discoverable: residentKey,
                                                  hmacSecret: hmacSecret, credProtect: credProtect)
        let credentialId = wrapper.wrap(contents, rpIdHash: rpIdHash, iv: randomBytes(16))

        var mutations: [CardMutation] = [.setSignatureCounter(state.signatureCounter &+ 1)]
        if residentKey {
            if let replaced { mutations.append(.removeCredential(id: replaced.id)) }
            mutations.append(.addCredential(ResidentCredential(
                id: credentialId, rpId: rpId, rpName: rpName, userId: userId, userName: userName,
                userDisplayName: userDisplayName, privateKey: contents.privateKey, credProtect: credProtect,
                hmacSecret: hmacSecret, serial: state.nextCredentialSerial)))
        }
        try persist(mutations)
        if pinUvAuthParam != nil { consumeTokenPermissions() }

        var flags: AuthenticatorData.Flags = [.userPresent, .attestedCredentialData]
        if userVerified { flags.insert(.userVerified) }
        let authenticatorData = AuthenticatorData(
            rpIdHash: rpIdHash, flags: injectedFlags(flags), signatureCounter: state.signatureCounter,
            attestedCredential: .init(aaguid: aaguid, credentialId: credentialId, publicKey: privateKey.publicKey),
            extensions: extensionOutputs.count > 0 ? extensionOutputs : nil
        ).bytes

        let (format, statement) = try attestationStatement(
            authenticatorData: authenticatorData, clientDataHash: clientDataHash, credentialKey: privateKey)
        var response = CBORMap()
        response[.int(0x01)] = .text(format)
        response[.int(0x02)] = .bytes(authenticatorData)
        response[.int(0x03)] = statement
        return .map(response)
    }

    /// The attestation statement for the profile's format (WebAuthn §8.2 packed, §8.7 none).
    private func attestationStatement(authenticatorData: [UInt8], clientDataHash: [UInt8],
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

    /// A credential this card holds for `rpIdHash`: a discoverable one that still exists, or a
    /// non-discoverable one whose ID unwraps. Deleted discoverable credentials are not found.
    func credential(id: [UInt8], rpIdHash: [UInt8]) -> CredentialWrapper.Contents? {
        guard let contents = wrapper.unwrap(id, rpIdHash: rpIdHash) else { return nil }
        if contents.discoverable && residentIndex[id] == nil { return nil }
        return contents
    }
}
