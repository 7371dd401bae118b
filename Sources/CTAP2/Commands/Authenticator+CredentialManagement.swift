import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorCredentialManagement (CTAP 2.1 §6.8). Authenticated subcommands carry
    /// pinUvAuthParam = authenticate(token, subCommand ‖ subCommandParams) and need the `cm` permission.
    func credentialManagement(_ parameters: Parameters) throws(CTAPStatus) -> CBORValue? {
        let subcommandNumber = try parameters.requiredUnsigned(0x01)
        let subcommandParameters = try parameters.nested(0x02)
        let protocolNumber = try parameters.unsigned(0x03)
        let pinUvAuthParam = try parameters.bytes(0x04)
        guard let subcommand = CredentialManagementSubcommand(rawValue: Int(clamping: subcommandNumber)) else {
            throw .invalidSubcommand
        }
        if subcommand != .enumerateRPsGetNextRP { volatile.rpEnumeration = nil }
        if subcommand != .enumerateCredentialsGetNextCredential { volatile.credentialEnumeration = nil }

        var boundRPID: String?
        if !subcommand.continuesEnumeration {
            guard let pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(protocolNumber)
            var message: [UInt8] = [UInt8(subcommandNumber)]
            if let subcommandParameters { message += CBOREncoder.encode(.map(subcommandParameters.map)) }
            try verifyToken(pinUvAuthParam, message: message, protocol: pinProtocol,
                            permission: .credentialManagement, rpId: nil)
            boundRPID = volatile.token?.rpId
        }

        switch subcommand {
        case .getCredsMetadata:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            return .map([.int(0x01): .int(state.residentCredentials.count),
                         .int(0x02): .int(remainingDiscoverableCredentials)])
        case .enumerateRPsBegin:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            var rpIds: [String] = []
            var seen = Set<String>()
            for credential in state.residentCredentials where seen.insert(credential.rpId).inserted {
                rpIds.append(credential.rpId)
            }
            guard !rpIds.isEmpty else { throw .noCredentials }
            let first = rpIds.removeFirst()
            volatile.rpEnumeration = rpIds
            var response = rpEntry(first)
            response[.int(0x05)] = .int(rpIds.count + 1)
            return .map(response)
        case .enumerateRPsGetNextRP:
            guard var remaining = volatile.rpEnumeration, !remaining.isEmpty else { throw .notAllowed }
            let next = remaining.removeFirst()
            volatile.rpEnumeration = remaining.isEmpty ? nil : remaining
            return .map(rpEntry(next))
        case .enumerateCredentialsBegin:
            guard let subcommandParameters else { throw .missingParameter }
            let rpIdHash = try subcommandParameters.requiredBytes(0x01)
            var credentials = rpIdHashes[rpIdHash].map(residentCredentials(rpId:)) ?? []
            if let boundRPID, SHA256.hash(Array(boundRPID.utf8)) != rpIdHash { throw .pinAuthInvalid }
            guard !credentials.isEmpty else { throw .noCredentials }
            let first = credentials.removeFirst()
            volatile.credentialEnumeration = credentials
            var response = try credentialEntry(first)
            response[.int(0x09)] = .int(credentials.count + 1)
            return .map(response)
        case .enumerateCredentialsGetNextCredential:
            guard var remaining = volatile.credentialEnumeration, !remaining.isEmpty else { throw .notAllowed }
            let next = remaining.removeFirst()
            volatile.credentialEnumeration = remaining.isEmpty ? nil : remaining
            return .map(try credentialEntry(next))
        case .deleteCredential:
            let position = try residentPosition(subcommandParameters, boundRPID: boundRPID)
            try persist(.removeCredential(id: state.residentCredentials[position].id))
            return nil
        case .updateUserInformation:
            let position = try residentPosition(subcommandParameters, boundRPID: boundRPID)
            guard let user = try subcommandParameters?.requiredNested(0x03) else { throw .missingParameter }
            guard let userId = try user.bytes(named: "id") else { throw .missingParameter }
            guard userId == state.residentCredentials[position].userId else { throw .invalidParameter }
            let name = try user.text(named: "name")
            let displayName = try user.text(named: "displayName")
            try persist(.updateUser(id: state.residentCredentials[position].id, name: name, displayName: displayName))
            return nil
        }
    }

    private func rpEntry(_ rpId: String) -> CBORMap {
        var rp: CBORMap = ["id": .text(rpId)]
        if let name = state.residentCredentials.first(where: { $0.rpId == rpId })?.rpName {
            rp["name"] = .text(name)
        }
        return [.int(0x03): .map(rp), .int(0x04): .bytes(SHA256.hash(Array(rpId.utf8)))]
    }

    private func credentialEntry(_ credential: ResidentCredential) throws(CTAPStatus) -> CBORMap {
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(rawScalar: credential.privateKey)
        } catch {
            throw .other
        }
        var user: CBORMap = ["id": .bytes(credential.userId)]
        if let name = credential.userName { user["name"] = .text(name) }
        if let displayName = credential.userDisplayName { user["displayName"] = .text(displayName) }
        return [
            .int(0x06): .map(user),
            .int(0x07): CredentialDescriptor.encode(id: credential.id),
            .int(0x08): COSEKey.es256(key.publicKey),
            .int(0x0A): .int(Int(credential.credProtect)),
        ]
    }

    /// The stored position of the credential named by subCommandParams' credentialId (0x02).
    private func residentPosition(_ parameters: Parameters?, boundRPID: String?) throws(CTAPStatus) -> Int {
        guard let parameters, let descriptor = parameters[0x02] else { throw .missingParameter }
        let id = try CredentialDescriptor(descriptor).id
        guard let position = residentIndex[id] else { throw .noCredentials }
        if let boundRPID, state.residentCredentials[position].rpId != boundRPID { throw .pinAuthInvalid }
        return position
    }
}
