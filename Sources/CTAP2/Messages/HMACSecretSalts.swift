import CBOR
import FIDOWire

/// An hmac-secret (or hmac-secret-mc) input as sent (CTAP 2.1 §12.5): the platform's key
/// agreement key and its encrypted, authenticated salts.
struct HMACSecretSalts: Sendable, Equatable {
    /// A COSE_Key, for the PIN/UV auth protocol's codec.
    var keyAgreement: CBORValue
    var saltEnc: [UInt8]
    var saltAuth: [UInt8]
    var pinUvAuthProtocol: UInt64?
}

extension HMACSecretSalts: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, HMACSecretInputKey>([
        .required(.keyAgreement, \.keyAgreement, .any),
        .required(.saltEnc, \.saltEnc, .bytes),
        .required(.saltAuth, \.saltAuth, .bytes),
        .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
    ])
    static let initial = HMACSecretSalts(keyAgreement: .null, saltEnc: [], saltAuth: [])
}
