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

extension GetAssertionResponse {
    /// Reads a response body (the CBOR after the status byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let response = try RequestMap<GetAssertionResponseKey>(decoding: body)
        guard let credential = response[.credential] else { throw .missingParameter }
        self.credential = try CredentialDescriptor(decoding: credential)
        authData = try response.requiredBytes(.authData)
        signature = try response.requiredBytes(.signature)
        user = try response.entity(.user).map { entity throws(CTAPStatus) in try CredentialUser(decoding: entity) }
        numberOfCredentials = try response.unsigned(.numberOfCredentials).map { Int(clamping: $0) }
    }

}

extension GetAssertionResponse: CTAPSerializable {
    /// The response body, member by member in canonical order: every assertion is answered this
    /// way, without a tree.
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
