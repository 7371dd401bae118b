import CBOR
import FIDOWire

/// One assertion from authenticatorGetAssertion or authenticatorGetNextAssertion
/// (CTAP 2.1 §6.2.2).
public struct AssertionResult: Sendable {
    /// The credential that signed (`credential`, 0x01).
    public let credential: CredentialDescriptor
    /// `authData` (0x02), parsed.
    public let authenticatorData: ParsedAuthenticatorData
    /// `signature` (0x03): ECDSA over authData ‖ clientDataHash.
    public let signature: [UInt8]
    /// `user` (0x04): the user handle of a discoverable credential, with name and displayName
    /// when the card shows them.
    public let user: UserEntity?
    /// `numberOfCredentials` (0x05): how many assertions getNextAssertion can still deliver, plus
    /// this one; only in the first response.
    public let numberOfCredentials: Int?

    /// Reads a getAssertion / getNextAssertion response; `allowList` fills in the credential when
    /// the card omitted it (allowed for a one-entry list).
    public init(_ map: CBORMap, allowList: [CredentialDescriptor] = []) throws(CTAPClientError) {
        if let credential = map[GetAssertionResponseKey.credential] {
            self.credential = try CredentialDescriptor(cbor: credential)
        } else if allowList.count == 1 {
            credential = allowList[0]
        } else {
            throw .malformedResponse("getAssertion without credential")
        }
        guard let authData = map[GetAssertionResponseKey.authData]?.bytesValue else { throw .malformedResponse("getAssertion without authData") }
        guard let signature = map[GetAssertionResponseKey.signature]?.bytesValue, !signature.isEmpty else {
            throw .malformedResponse("getAssertion without signature")
        }
        authenticatorData = try ParsedAuthenticatorData(authData)
        self.signature = signature
        user = try map[GetAssertionResponseKey.user].map { value throws(CTAPClientError) in try UserEntity(cbor: value) }
        numberOfCredentials = map[GetAssertionResponseKey.numberOfCredentials]?.intValue
    }
}
