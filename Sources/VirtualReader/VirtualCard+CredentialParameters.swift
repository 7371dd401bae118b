import ArculusCard
import CardCrypto
import JSONSupport

/// Credentials in the shape the control protocol and `arculus-card image` use: added from
/// ``CredentialParameters`` (with WebDriver's `signCount` and `credentialId`), listed with
/// their private keys and the card's counter.
extension VirtualCard {
    /// Adds the credential `parameters` describe, then raises the signature counter to its
    /// `signCount`; returns what was added. A `credentialId` is honoured only as the type's rule
    /// says; otherwise the card is unchanged and ``ControlChannelError/refused(_:)`` names it.
    @discardableResult
    public func add(_ parameters: CredentialParameters) throws -> CredentialListing {
        let seed = parameters.seed
        let record: CredentialRecord
        if let id = parameters.credentialId {
            guard let held = credentialRecords.first(where: { $0.id == id }), seed.discoverable, held.rpId == seed.rpId,
                  held.rpName == seed.rpName, held.user == seed.user, held.credProtect == seed.credProtect,
                  held.hmacSecret == seed.hmacSecret, seed.privateKey.map({ $0.publicKey == held.publicKey }) ?? true else {
                throw ControlChannelError.refused(
                    "credential: credentialId \(Base64URL.encode(id)) is not a discoverable credential this card "
                        + "holds with these details, and the card cannot take a chosen ID: it mints each ID by wrapping the "
                        + "key under its own secret. Leave credentialId out and use the ID in the answer.")
            }
            record = held
        } else {
            record = try addCredential(seed)
        }
        if let least = parameters.signCount, least > pinState.signatureCounter {
            try setSignatureCounter(least)
        }
        return listing(record, privateKey: seed.privateKey)
    }

    /// The discoverable credentials, oldest first, of every algorithm, with their private keys
    /// and the counter.
    public var credentialListings: [CredentialListing] {
        let stored = Dictionary(credentials.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let counter = pinState.signatureCounter
        return credentialRecords.map { record in
            CredentialListing(record: record, privateKey: stored[record.id].flatMap(Self.privateKey), signCount: counter)
        }
    }

    /// `record` listed: its key is the stored one for a discoverable credential, else `known`.
    private func listing(_ record: CredentialRecord, privateKey known: CredentialPrivateKey?) -> CredentialListing {
        let stored = credentials.first { $0.id == record.id }.flatMap(Self.privateKey)
        return CredentialListing(record: record, privateKey: stored ?? known, signCount: pinState.signatureCounter)
    }

    /// A stored credential's private key, of its algorithm.
    private static func privateKey(_ credential: ResidentCredential) -> CredentialPrivateKey? {
        guard let algorithm = SignatureAlgorithm(rawValue: credential.algorithm) else { return nil }
        return try? CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: credential.privateKey)
    }
}
