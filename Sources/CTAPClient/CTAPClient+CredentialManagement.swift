import CBOR
import CardCrypto
import FIDOWire

extension CTAPClient {
    /// How many discoverable credentials the card holds and how many more fit (getCredsMetadata).
    /// The token needs the `cm` permission.
    public func credentialsMetadata(token: PINUVAuthToken) throws(CTAPClientError) -> (existing: Int, remaining: Int) {
        let response = try credentialManagement(.getCredsMetadata, token: token)
        guard let existing = response[CredentialManagementResponseKey.existingResidentCredentialsCount]?.intValue,
              let remaining = response[CredentialManagementResponseKey.maxPossibleRemainingResidentCredentialsCount]?.intValue else {
            throw .malformedResponse("getCredsMetadata without the two counts")
        }
        return (existing, remaining)
    }

    /// Every relying party with discoverable credentials on the card (enumerateRPs), or none.
    public func relyingParties(token: PINUVAuthToken) throws(CTAPClientError) -> [RelyingPartyEntity] {
        let first: CBORMap
        do {
            first = try credentialManagement(.enumerateRPsBegin, token: token)
        } catch where error.ctapStatus == .noCredentials {
            return []
        }
        var parties = [try Self.relyingParty(first)]
        let total = first[CredentialManagementResponseKey.totalRPs]?.intValue ?? 1
        while parties.count < total {
            parties.append(try Self.relyingParty(try credentialManagement(.enumerateRPsGetNextRP, token: nil)))
        }
        return parties
    }

    /// The discoverable credentials for `relyingParty` (enumerateCredentials), or none.
    public func credentials(of relyingParty: RelyingPartyEntity, token: PINUVAuthToken) throws(CTAPClientError) -> [StoredCredential] {
        let rpIDHash = SHA256.hash(Array(relyingParty.id.utf8))
        let first: CBORMap
        do {
            first = try credentialManagement(.enumerateCredentialsBegin, [.rpIDHash: .bytes(rpIDHash)], token: token)
        } catch where error.ctapStatus == .noCredentials {
            return []
        }
        var credentials = [try StoredCredential(first, relyingParty: relyingParty)]
        let total = first[CredentialManagementResponseKey.totalCredentials]?.intValue ?? 1
        while credentials.count < total {
            credentials.append(try StoredCredential(try credentialManagement(.enumerateCredentialsGetNextCredential, token: nil),
                                                    relyingParty: relyingParty))
        }
        return credentials
    }

    /// Every discoverable credential on the card, relying party by relying party.
    public func allCredentials(token: PINUVAuthToken) throws(CTAPClientError) -> [StoredCredential] {
        var all: [StoredCredential] = []
        for party in try relyingParties(token: token) {
            all += try credentials(of: party, token: token)
        }
        return all
    }

    /// Deletes the discoverable credential with `credentialID` (deleteCredential).
    ///
    /// - Throws: `CTAP2_ERR_NO_CREDENTIALS` when the card holds no such credential.
    public func deleteCredential(id credentialID: [UInt8], token: PINUVAuthToken) throws(CTAPClientError) {
        _ = try credentialManagement(.deleteCredential, [.credentialID: CredentialDescriptor(id: credentialID).cbor], token: token)
    }

    /// One credential management subcommand; authenticated (pinUvAuthParam over subCommand ‖
    /// subCommandParams) when `token` is given.
    private func credentialManagement(_ subcommand: CredentialManagementSubcommand,
                                      _ subcommandMembers: KeyValuePairs<CredentialManagementParameterKey, CBORValue?> = [:],
                                      token: PINUVAuthToken?) throws(CTAPClientError) -> CBORMap {
        let (command, parameters) = try Self.credentialManagement(info, subcommand, subcommandMembers, token: token)
        return try send(command, parameters, subcommand: "\(subcommand)")
    }

    /// The command (credMgmt, or its preview on a FIDO_2_1_PRE card) and parameters of one
    /// credential management subcommand.
    static func credentialManagement(_ info: AuthenticatorInfo, _ subcommand: CredentialManagementSubcommand,
                                     _ subcommandMembers: KeyValuePairs<CredentialManagementParameterKey, CBORValue?>,
                                     token: PINUVAuthToken?) throws(CTAPClientError) -> (CTAPCommand, CBORMap) {
        guard let command = info.credentialManagementCommand else {
            throw .unsupported("the card has no credential management (getInfo option credMgmt is absent)")
        }
        let subcommandParameters: CBORMap? = subcommandMembers.isEmpty ? nil : CBORMap(subcommandMembers)
        var parameters = CBORMap([
            CredentialManagementKey.subCommand: .int(subcommand.rawValue),
            .subCommandParams: subcommandParameters.map { .map($0) },
        ])
        if let token {
            var message = [UInt8(subcommand.rawValue)]
            if let subcommandParameters { message += CBOREncoder.encode(.map(subcommandParameters)) }
            parameters[CredentialManagementKey.pinUvAuthProtocol] = .int(token.pinProtocol.version)
            parameters[CredentialManagementKey.pinUvAuthParam] = .bytes(token.authenticate(message))
        }
        return (command, parameters)
    }

    static func relyingParty(_ map: CBORMap) throws(CTAPClientError) -> RelyingPartyEntity {
        guard let rp = map[CredentialManagementResponseKey.rp] else { throw .malformedResponse("enumerateRPs without rp") }
        return try RelyingPartyEntity(cbor: rp)
    }
}
