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

    /// The response body.
    func encoded() -> CBORValue {
        var map = CBORMap()
        map.set(GetAssertionResponseKey.credential, credential.encoded)
        map.set(GetAssertionResponseKey.authData, .bytes(authData))
        map.set(GetAssertionResponseKey.signature, .bytes(signature))
        map.set(GetAssertionResponseKey.user, user?.encoded)
        map.set(GetAssertionResponseKey.numberOfCredentials, numberOfCredentials.map { .int($0) })
        map.set(GetAssertionResponseKey.largeBlobKey, largeBlobKey.map { .bytes($0) })
        return .map(map)
    }
}
