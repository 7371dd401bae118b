import CBOR
import COSE
import CardCrypto
import FIDOWire

extension Authenticator {
    /// authenticatorCredentialManagement (CTAP 2.1 §6.8), and its FIDO_2_1_PRE form (0x41,
    /// `preview`: no updateUserInformation). Authenticated subcommands carry pinUvAuthParam =
    /// authenticate(token, subCommand ‖ subCommandParams) and need the `cm` permission — or, for
    /// the read-only subcommands, the persistent token (CTAP 2.2 `pcmr`).
    mutating func credentialManagement(_ request: CredentialManagementRequest, preview: Bool,
                                       changes: inout [CardMutation]) throws(CTAPStatus) -> CredentialManagementResponse? {
        guard let subcommand = request.subcommand, !(preview && subcommand == .updateUserInformation) else {
            throw .invalidSubcommand
        }
        if subcommand != .enumerateRPsGetNextRP { session.rpEnumeration = nil }
        if subcommand != .enumerateCredentialsGetNextCredential { session.credentialEnumeration = nil }

        var boundRPID: [UInt8]?
        var readOnly = false
        if !subcommand.continuesEnumeration {
            guard let pinUvAuthParam = request.pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            if usesPersistentToken(pinUvAuthParam, message: request.authenticatedMessage, protocol: pinProtocol) {
                readOnly = true
            } else {
                // The preview form (FIDO_2_1_PRE) knew no permissions: a getPinToken token serves,
                // while it still holds the default permissions getPinToken gave it. Once user
                // presence consumed it (CTAP 2.1 §6.2.2 step 9.4, "clearPinUvAuthTokenPermissionsExceptLbw()")
                // it has no permission left and serves nothing but lbw.
                let legacyToken = preview && session.token.issuedByGetPinToken
                try verifyToken(pinUvAuthParam, message: request.authenticatedMessage, protocol: pinProtocol,
                                permission: legacyToken ? Self.getPinTokenPermissions : .credentialManagement, rpId: nil)
                boundRPID = session.token.rpId
            }
            session.enumerationIsReadOnly = readOnly
        } else {
            readOnly = session.enumerationIsReadOnly
        }

        switch subcommand {
        case .getCredsMetadata:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            return CredentialManagementResponse(
                existingResidentCredentialsCount: state.residentCredentials.count,
                maxPossibleRemainingResidentCredentialsCount: profile.behaviour.remainingCredentials == .capacity
                    ? profile.residentKeyCapacity : remainingDiscoverableCredentials)
        case .enumerateRPsBegin:
            guard boundRPID == nil else { throw .pinAuthInvalid }
            var rpIds: [String] = []
            var seen = Set<[UInt8]>()
            for credential in state.residentCredentials where seen.insert(Array(credential.rpId.utf8)).inserted {
                rpIds.append(credential.rpId)
            }
            let first = try Self.begin(rpIds, enumeration: &session.rpEnumeration)
            var response = rpEntry(first)
            response.totalRPs = rpIds.count
            return response
        case .enumerateRPsGetNextRP:
            return rpEntry(try Self.next(of: &session.rpEnumeration))
        case .enumerateCredentialsBegin:
            let rpIdHash = try request.rpIDHash()
            let credentials = memory.rpIdHashes[ByteKey(rpIdHash)].map(memory.residentCredentials(rpId:)) ?? []
            if let boundRPID, SHA256.hash(boundRPID) != rpIdHash { throw .pinAuthInvalid }
            var response = try credentialEntry(try Self.begin(credentials, enumeration: &session.credentialEnumeration))
            response.totalCredentials = credentials.count
            return response
        case .enumerateCredentialsGetNextCredential:
            return try credentialEntry(try Self.next(of: &session.credentialEnumeration))
        case .deleteCredential:
            guard !readOnly else { throw .pinAuthInvalid }
            let credential: ResidentCredential
            do {
                credential = try residentCredential(named: request, boundRPID: boundRPID)
            } catch .noCredentials where profile.departures.deleteMissingCredentialOK {
                return nil
            }
            changes.append(.removeCredential(id: credential.id))
            return nil
        case .updateUserInformation:
            guard !readOnly else { throw .pinAuthInvalid }
            let credential = try residentCredential(named: request, boundRPID: boundRPID)
            let user = try request.user()
            guard user.id == credential.userId else { throw .invalidParameter }
            // CTAP 2.1 §6.8.6: a name absent or empty in the request is removed from the credential.
            changes.append(.updateUser(id: credential.id, name: user.name.flatMap { $0.isEmpty || !profile.keeps("user.name") ? nil : $0 },
                                       displayName: user.displayName.flatMap { $0.isEmpty || !profile.keeps("user.displayName") ? nil : $0 }))
            return nil
        }
    }

    /// Whether `param` authenticates `message` under the persistent pinUvAuthToken.
    private func usesPersistentToken(_ param: [UInt8], message: [UInt8], protocol pinProtocol: PINUVAuthProtocol) -> Bool {
        guard profile.persistentCredentialManagement, let token = state.persistentToken else { return false }
        return pinProtocol.verify(key: token, message: message, signature: param)
    }

    private func rpEntry(_ rpId: String) -> CredentialManagementResponse {
        let name = memory.residentCredentials(rpId: rpId).last?.rpName
        return CredentialManagementResponse(rp: RelyingPartyEntity(id: rpId, name: name),
                                            rpIDHash: SHA256.hash(Array(rpId.utf8)))
    }

    private mutating func credentialEntry(_ credential: ResidentCredential) throws(CTAPStatus) -> CredentialManagementResponse {
        let key = try signingKey(id: credential.id, material: credential.contents.key)
        return CredentialManagementResponse(
            user: CredentialUser(id: credential.userId, name: credential.userName, displayName: credential.userDisplayName),
            credentialID: CredentialDescriptor(id: credential.id), publicKey: CBORValue(coseKey: key.publicKey),
            credProtect: Int(credential.credProtect), largeBlobKey: credential.largeBlobKey,
            thirdPartyPayment: profile.offers(.thirdPartyPayment) ? credential.thirdPartyPayment : nil)
    }

    /// An enumeration's first item; the rest wait in `enumeration` for getNext (none: NO_CREDENTIALS).
    private static func begin<Item>(_ items: [Item], enumeration: inout [Item]?) throws(CTAPStatus) -> Item {
        guard let first = items.first else { throw .noCredentials }
        enumeration = Array(items.dropFirst())
        return first
    }

    /// The enumeration's next item (none left, or none begun: NOT_ALLOWED).
    private static func next<Item>(of enumeration: inout [Item]?) throws(CTAPStatus) -> Item {
        guard var remaining = enumeration, !remaining.isEmpty else { throw .notAllowed }
        let next = remaining.removeFirst()
        enumeration = remaining.isEmpty ? nil : remaining
        return next
    }

    /// The stored credential named by subCommandParams' credentialId (0x02).
    private func residentCredential(named request: CredentialManagementRequest,
                                    boundRPID: [UInt8]?) throws(CTAPStatus) -> ResidentCredential {
        let id = try request.credentialID().id
        guard let credential = memory.residentCredential(id: id) else { throw .noCredentials }
        if let boundRPID, Array(credential.rpId.utf8) != boundRPID { throw .pinAuthInvalid }
        return credential
    }
}
