import CBOR
import FIDOWire

/// authenticatorGetInfo's answer (CTAP 2.1 §6.4): what the card is and can do. Members a card
/// does not report are nil (and absent from the encoding).
struct AuthenticatorInfo: Sendable, Equatable {
    var versions: [String]
    var extensions: [String]?
    var aaguid: [UInt8]
    /// Options in the order the card lists them.
    var options: [(name: String, value: Bool)] = []
    var maxMsgSize: Int?
    var pinUvAuthProtocols: [Int]?
    var maxCredentialCountInList: Int?
    var maxCredentialIdLength: Int?
    var transports: [String]?
    /// COSE algorithm identifiers of `public-key` credentials.
    var algorithms: [Int]?
    var maxSerializedLargeBlobArray: Int? = nil
    var forcePINChange: Bool?
    var minPINLength: Int?
    var firmwareVersion: Int?
    var maxCredBlobLength: Int? = nil
    var maxRPIDsForSetMinPINLength: Int? = nil
    var uvModality: Int? = nil
    var remainingDiscoverableCredentials: Int?
    /// The device identifier encrypted under the persistent pinUvAuthToken (CTAP 2.2).
    var encIdentifier: [UInt8]? = nil
    var maxPINLength: Int? = nil
    /// The credential store's state encrypted under the persistent pinUvAuthToken (CTAP 2.2).
    var encCredStoreState: [UInt8]? = nil

    /// The value of option `name`, if the card lists it.
    func option(_ name: String) -> Bool? { options.first { $0.name == name }?.value }
}

extension AuthenticatorInfo {
    static func == (lhs: AuthenticatorInfo, rhs: AuthenticatorInfo) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}

extension AuthenticatorInfo: CTAPMessage, DeclaredMembers {
    /// Options written in canonical order, whatever order the card lists them in.
    static let members = MessageMembers<Self, GetInfoKey>([
        .required(.versions, \.versions, .array(of: .text)),
        .optional(.extensions, \.extensions, .array(of: .text)),
        .required(.aaguid, \.aaguid, .bytes),
        .defaulted(.options, \.options, .optionList),
        .optional(.maxMsgSize, \.maxMsgSize, .count),
        .optional(.pinUvAuthProtocols, \.pinUvAuthProtocols, .array(of: .integer)),
        .optional(.maxCredentialCountInList, \.maxCredentialCountInList, .count),
        .optional(.maxCredentialIdLength, \.maxCredentialIdLength, .count),
        .optional(.transports, \.transports, .array(of: .text)),
        .optional(.algorithms, \.algorithms, .array(of: .publicKeyAlgorithm)),
        .optional(.maxSerializedLargeBlobArray, \.maxSerializedLargeBlobArray, .count),
        .optional(.forcePINChange, \.forcePINChange, .bool),
        .optional(.minPINLength, \.minPINLength, .count),
        .optional(.firmwareVersion, \.firmwareVersion, .count),
        .optional(.maxCredBlobLength, \.maxCredBlobLength, .count),
        .optional(.maxRPIDsForSetMinPINLength, \.maxRPIDsForSetMinPINLength, .count),
        .optional(.uvModality, \.uvModality, .count),
        .optional(.remainingDiscoverableCredentials, \.remainingDiscoverableCredentials, .count),
        .optional(.encIdentifier, \.encIdentifier, .bytes),
        .optional(.maxPINLength, \.maxPINLength, .count),
        .optional(.encCredStoreState, \.encCredStoreState, .bytes),
    ])
    static let initial = AuthenticatorInfo(versions: [], extensions: nil, aaguid: [])
}
