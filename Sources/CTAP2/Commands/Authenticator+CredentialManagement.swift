import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorCredentialManagement (CTAP 2.1 §6.8). Authenticated subcommands carry
    /// pinUvAuthParam = authenticate(token, subCommand ‖ subCommandParams) and need the `cm` permission.
    mutating func credentialManagement(_ request: CredentialManagementRequest,
                                       changes: inout [CardMutation]) throws(CTAPStatus) -> CredentialManagementResponse? {
        guard let subcommand = request.subcommand else { throw .invalidSubcommand }
        if subcommand != .enumerateRPsGetNextRP { session.rpEnumeration = nil }
        if subcommand != .enumerateCredentialsGetNextCredential { session.credentialEnumeration = nil }

        var boundRPID: String?
        if !subcommand.continuesEnumeration {
            guard let pinUvAuthParam = request.pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            try verifyToken(pinUvAuthParam, message: request.authenticatedMessage, protocol: pinProtocol,
                            permission: .credentialManagement, rpId: nil)
            boundRPID = session.token?.rpId
        }

        switch subcommand {
        case .getCredsMetadata:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            return CredentialManagementResponse(
                existingResidentCredentialsCount: state.residentCredentials.count,
                maxPossibleRemainingResidentCredentialsCount: remainingDiscoverableCredentials)
        case .enumerateRPsBegin:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            var rpIds: [String] = []
            var seen = Set<String>()
            for credential in state.residentCredentials where seen.insert(credential.rpId).inserted {
                rpIds.append(credential.rpId)
            }
            guard !rpIds.isEmpty else { throw .noCredentials }
            let first = rpIds.removeFirst()
            session.rpEnumeration = rpIds
            var response = rpEntry(first)
            response.totalRPs = rpIds.count + 1
            return response
        case .enumerateRPsGetNextRP:
            guard var remaining = session.rpEnumeration, !remaining.isEmpty else { throw .notAllowed }
            let next = remaining.removeFirst()
            session.rpEnumeration = remaining.isEmpty ? nil : remaining
            return rpEntry(next)
        case .enumerateCredentialsBegin:
            let rpIdHash = try request.rpIDHash()
            var credentials = memory.rpIdHashes[rpIdHash].map(memory.residentCredentials(rpId:)) ?? []
            if let boundRPID, SHA256.hash(Array(boundRPID.utf8)) != rpIdHash { throw .pinAuthInvalid }
            guard !credentials.isEmpty else { throw .noCredentials }
            let first = credentials.removeFirst()
            session.credentialEnumeration = credentials
            var response = try credentialEntry(first)
            response.totalCredentials = credentials.count + 1
            return response
        case .enumerateCredentialsGetNextCredential:
            guard var remaining = session.credentialEnumeration, !remaining.isEmpty else { throw .notAllowed }
            let next = remaining.removeFirst()
            session.credentialEnumeration = remaining.isEmpty ? nil : remaining
            return try credentialEntry(next)
        case .deleteCredential:
            let credential = try residentCredential(named: request, boundRPID: boundRPID)
            changes.append(.removeCredential(id: credential.id))
            return nil
        case .updateUserInformation:
            let credential = try residentCredential(named: request, boundRPID: boundRPID)
            let user = try request.user()
            guard user.id == credential.userId else { throw .invalidParameter }
            changes.append(.updateUser(id: credential.id, name: user.name, displayName: user.displayName))
            return nil
        }
    }

    private func rpEntry(_ rpId: String) -> CredentialManagementResponse {
        let name = memory.residentCredentials(rpId: rpId).last?.rpName
        return CredentialManagementResponse(rp: RelyingPartyEntity(id: rpId, name: name),
                                            rpIDHash: SHA256.hash(Array(rpId.utf8)))
    }

    private mutating func credentialEntry(_ credential: ResidentCredential) throws(CTAPStatus) -> CredentialManagementResponse {
        let key = try crypto("reading a stored credential key") { () throws -> P256PrivateKey in
            try P256PrivateKey(rawScalar: credential.privateKey)
        }
        return CredentialManagementResponse(
            user: CredentialUser(id: credential.userId, name: credential.userName, displayName: credential.userDisplayName),
            credentialID: CredentialDescriptor(id: credential.id), publicKey: COSEKey.es256(key.publicKey),
            credProtect: Int(credential.credProtect))
    }

    /// The stored credential named by subCommandParams' credentialId (0x02).
    private func residentCredential(named request: CredentialManagementRequest,
                                    boundRPID: String?) throws(CTAPStatus) -> ResidentCredential {
        let id = try request.credentialID().id
        guard let credential = memory.residentCredential(id: id) else { throw .noCredentials }
        if let boundRPID, credential.rpId != boundRPID { throw .pinAuthInvalid }
        return credential
    }
}
