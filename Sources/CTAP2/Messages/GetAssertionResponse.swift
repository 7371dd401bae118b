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

extension GetAssertionResponse: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var credential = Member<CredentialDescriptor>.absent
        var authData = Member<[UInt8]>.absent
        var signature = Member<[UInt8]>.absent
        var user = Member<CredentialUser>.absent
        var numberOfCredentials = Member<UInt64>.absent
        var largeBlobKey = Member<[UInt8]>.absent
        while let key: GetAssertionResponseKey = try members.next(&reader) {
            switch key {
            case .credential: credential = try reader.message(CredentialDescriptor.self)
            case .authData: authData = try reader.byteString()
            case .signature: signature = try reader.byteString()
            case .user: user = try reader.message(CredentialUser.self)
            case .numberOfCredentials: numberOfCredentials = try reader.unsigned()
            case .largeBlobKey: largeBlobKey = try reader.byteString()
            case .userSelected, .unsignedExtensionOutputs: _ = try reader.skipItem()
            }
        }
        return Result { () throws(CTAPStatus) in
            let credential = try credential.required()
            let authData = try authData.required()
            let signature = try signature.required()
            return GetAssertionResponse(credential: credential, authData: authData, signature: signature, user: try user.optional(),
                                        numberOfCredentials: try numberOfCredentials.optional().map { Int(clamping: $0) },
                                        largeBlobKey: try largeBlobKey.optional())
        }
    }

    /// The response body, member by member in canonical order (every assertion is answered this
    /// way, without a tree).
    func write(to writer: inout CBORWriter) {
        typealias Key = GetAssertionResponseKey
        var map = writer.openMap()
        writer.member(Key.credential, credential, of: &map)
        writer.member(Key.authData, bytes: authData, of: &map)
        writer.member(Key.signature, bytes: signature, of: &map)
        writer.member(Key.user, user, of: &map)
        writer.member(Key.numberOfCredentials, int: numberOfCredentials, of: &map)
        writer.member(Key.largeBlobKey, bytes: largeBlobKey, of: &map)
        writer.close(map)
    }
}
