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

extension GetAssertionResponse {
    /// Appends the response body, member by member in canonical order: the bytes of
    /// `CBOREncoder.encode(encoded())` (a test holds them equal for every member combination),
    /// without the tree. Every assertion is answered this way.
    func encode(into output: inout [UInt8]) {
        let count = 3 + (user == nil ? 0 : 1) + (numberOfCredentials == nil ? 0 : 1) + (largeBlobKey == nil ? 0 : 1)
        CBOREncoder.appendMapHead(count: count, to: &output)
        CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.credential.rawValue), to: &output)
        credential.encode(into: &output)
        CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.authData.rawValue), to: &output)
        CBOREncoder.appendBytes(authData, to: &output)
        CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.signature.rawValue), to: &output)
        CBOREncoder.appendBytes(signature, to: &output)
        if let user {
            CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.user.rawValue), to: &output)
            CBOREncoder.encode(user.encoded, into: &output)
        }
        if let numberOfCredentials {
            CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.numberOfCredentials.rawValue), to: &output)
            CBOREncoder.encode(.int(numberOfCredentials), into: &output)
        }
        if let largeBlobKey {
            CBOREncoder.appendUnsigned(UInt64(GetAssertionResponseKey.largeBlobKey.rawValue), to: &output)
            CBOREncoder.appendBytes(largeBlobKey, to: &output)
        }
    }
}
