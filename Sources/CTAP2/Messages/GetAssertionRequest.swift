import CBOR
import FIDOWire

/// authenticatorGetAssertion's parameters (CTAP 2.1 §6.2.1), read and type-checked.
struct GetAssertionRequest: Sendable, Equatable {
    var rpId: String
    var clientDataHash: [UInt8]
    var allowList: [CredentialDescriptor] = []
    /// The extensions map, as sent and with its members found: each extension's input is read
    /// from them by ``GetAssertionExtensionInputs`` (which the profile decides).
    var extensions: ExtensionsMap?
    var options: [String: Bool] = [:]
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
}

extension GetAssertionRequest: CTAPMessage, DeclaredMembers {
    /// Read straight into the request: for an assertion with an allow list of one, a CBOR tree
    /// built, read and released cost a quarter of everything the card does besides the signature.
    static let members = MessageMembers<Self, GetAssertionKey>([
        .required(.rpId, \.rpId, .text),
        .required(.clientDataHash, \.clientDataHash, .bytes),
        .defaulted(.allowList, \.allowList, .array(of: .message), omitted: \.isEmpty),
        .optional(.extensions, \.extensions, .extensionsMap),
        .defaulted(.options, \.options, .options, omitted: \.isEmpty),
        .optional(.pinUvAuthParam, \.pinUvAuthParam, .bytes),
        .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
    ])
    static let initial = GetAssertionRequest(rpId: "", clientDataHash: [])
}
