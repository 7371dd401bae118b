import CBOR
import FIDOWire

/// authenticatorClientPIN's answer (CTAP 2.1 §6.5.5): the members a subcommand returns.
struct ClientPINResponse: Sendable, Equatable {
    /// The card's key-agreement key (getKeyAgreement), a COSE_Key.
    var keyAgreement: CBORValue?
    /// The encrypted pinUvAuthToken.
    var pinUvAuthToken: [UInt8]?
    var pinRetries: Int?
    /// Whether the card must leave the field before the next PIN attempt (CTAP 2.1).
    var powerCycleState: Bool?
    var uvRetries: Int?
}

extension ClientPINResponse: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, ClientPINResponseKey>([
        .optional(.keyAgreement, \.keyAgreement, .any),
        .optional(.pinUvAuthToken, \.pinUvAuthToken, .bytes),
        .optional(.pinRetries, \.pinRetries, .count),
        .optional(.powerCycleState, \.powerCycleState, .bool),
        .optional(.uvRetries, \.uvRetries, .count),
    ])
    static let initial = ClientPINResponse()
}
