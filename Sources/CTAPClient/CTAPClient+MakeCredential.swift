import CBOR
import FIDOWire

extension CTAPClient {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1). With a token, the request carries
    /// pinUvAuthParam = authenticate(token, clientDataHash) and the card verifies the user.
    public func makeCredential(_ request: MakeCredentialRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> AttestationResult {
        return try AttestationResult(try send(.makeCredential, request.parameters(token: token)))
    }
}
