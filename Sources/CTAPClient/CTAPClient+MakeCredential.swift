import CBOR
import FIDOWire

extension CTAPClient {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1). With a token, the request carries
    /// pinUvAuthParam = authenticate(token, clientDataHash) and the card verifies the user.
    public func makeCredential(_ request: MakeCredentialRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> AttestationResult {
        let parameters = CBORMap([
            MakeCredentialKey.clientDataHash: .bytes(request.clientDataHash),
            .rp: request.relyingParty.cbor,
            .user: request.user.cbor,
            .pubKeyCredParams: .array(request.algorithms.map { .map(["alg": .int($0), "type": "public-key"]) }),
            .excludeList: request.excludeList.isEmpty ? nil : .array(request.excludeList.map(\.cbor)),
            .extensions: request.extensions.map { .map($0) },
            .options: request.residentKey ? .map(["rk": true]) : nil,
            .pinUvAuthParam: token.map { .bytes($0.authenticate(request.clientDataHash)) },
            .pinUvAuthProtocol: token.map { .int($0.pinProtocol.version) },
        ])
        return try AttestationResult(try send(.makeCredential, parameters))
    }
}
