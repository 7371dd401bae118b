import CBOR
import CardCrypto
import FIDOWire

extension AsyncCTAPClient {
    /// Every relying party with discoverable credentials on the card (enumerateRPs), or none.
    public func relyingParties(token: PINUVAuthToken) async throws(CTAPClientError) -> [RelyingPartyEntity] {
        let first: CBORMap
        do {
            first = try await credentialManagement(.enumerateRPsBegin, token: token)
        } catch where error.ctapStatus == .noCredentials {
            return []
        }
        var parties = [try CTAPClient.relyingParty(first)]
        while parties.count < first[CredentialManagementResponseKey.totalRPs]?.intValue ?? 1 {
            parties.append(try CTAPClient.relyingParty(try await credentialManagement(.enumerateRPsGetNextRP, token: nil)))
        }
        return parties
    }

    /// The discoverable credentials for `relyingParty` (enumerateCredentials), or none.
    public func credentials(of relyingParty: RelyingPartyEntity, token: PINUVAuthToken) async throws(CTAPClientError) -> [StoredCredential] {
        let first: CBORMap
        do {
            first = try await credentialManagement(.enumerateCredentialsBegin, [.rpIDHash: .bytes(SHA256.hash(Array(relyingParty.id.utf8)))],
                                                   token: token)
        } catch where error.ctapStatus == .noCredentials {
            return []
        }
        var credentials = [try StoredCredential(first, relyingParty: relyingParty)]
        while credentials.count < first[CredentialManagementResponseKey.totalCredentials]?.intValue ?? 1 {
            credentials.append(try StoredCredential(try await credentialManagement(.enumerateCredentialsGetNextCredential, token: nil),
                                                    relyingParty: relyingParty))
        }
        return credentials
    }

    /// Every discoverable credential on the card, relying party by relying party.
    public func allCredentials(token: PINUVAuthToken) async throws(CTAPClientError) -> [StoredCredential] {
        var all: [StoredCredential] = []
        for party in try await relyingParties(token: token) {
            all += try await credentials(of: party, token: token)
        }
        return all
    }

    /// Deletes the discoverable credential with `credentialID` (deleteCredential).
    public func deleteCredential(id credentialID: [UInt8], token: PINUVAuthToken) async throws(CTAPClientError) {
        _ = try await credentialManagement(.deleteCredential, [.credentialID: CredentialDescriptor(id: credentialID).cbor], token: token)
    }

    private func credentialManagement(_ subcommand: CredentialManagementSubcommand,
                                      _ members: KeyValuePairs<CredentialManagementParameterKey, CBORValue?> = [:],
                                      token: PINUVAuthToken?) async throws(CTAPClientError) -> CBORMap {
        let (command, parameters) = try CTAPClient.credentialManagement(info, subcommand, members, token: token)
        return try await send(command, parameters, subcommand: "\(subcommand)")
    }
}
