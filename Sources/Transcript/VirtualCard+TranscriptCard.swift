import ArculusCard
import CardCrypto

extension VirtualCard: TranscriptCard {
    /// The key of a discoverable credential on the card; nil for others (a non-discoverable
    /// credential's key is sealed inside its ID).
    public func credentialPublicKey(id: [UInt8]) -> P256PublicKey? {
        guard let credential = credentials.first(where: { $0.id == id }) else { return nil }
        return try? P256PrivateKey(rawScalar: credential.privateKey).publicKey
    }
}
