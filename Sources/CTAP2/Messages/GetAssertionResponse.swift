import CBOR
import FIDOWire

/// authenticatorGetAssertion's (and getNextAssertion's) answer (CTAP 2.1 §6.2.2).
struct GetAssertionResponse: Sendable, Equatable {
    var credential: CredentialDescriptor
    var authData: [UInt8]
    var signature: [UInt8]
    /// The user entity of a discoverable credential (the ID; names only when verified).
    var user: CredentialUser?
    /// How many credentials answer the request, in the first of several assertions.
    var numberOfCredentials: Int?
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for it.
    var largeBlobKey: [UInt8]? = nil
}

extension GetAssertionResponse: CTAPMessage, DeclaredMembers {
    /// Every assertion is answered from this declaration, without a tree. userSelected and
    /// unsignedExtensionOutputs are not read: skipped as any unknown member.
    static let members = MessageMembers<Self, GetAssertionResponseKey>([
        .required(.credential, \.credential, .message),
        .required(.authData, \.authData, .bytes),
        .required(.signature, \.signature, .bytes),
        .optional(.user, \.user, .message),
        .optional(.numberOfCredentials, \.numberOfCredentials, .count),
        .optional(.largeBlobKey, \.largeBlobKey, .bytes),
    ])
    static let initial = GetAssertionResponse(credential: CredentialDescriptor(id: []), authData: [], signature: [])
}
