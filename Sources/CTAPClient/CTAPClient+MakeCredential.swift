import CBOR

extension CTAPClient {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1). With a token, the request carries
    /// pinUvAuthParam = authenticate(token, clientDataHash) and the card verifies the user.
    public func makeCredential(_ request: MakeCredentialRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> AttestationResult {
        var parameters: CBORMap = [
            .int(0x01): .bytes(request.clientDataHash),
            .int(0x02): request.relyingParty.cbor,
            .int(0x03): request.user.cbor,
            .int(0x04): .array(request.algorithms.map { .map(["alg": .int($0), "type": "public-key"]) }),
        ]
        if !request.excludeList.isEmpty { parameters[.int(0x05)] = .array(request.excludeList.map(\.cbor)) }
        if let extensions = request.extensions { parameters[.int(0x06)] = .map(extensions) }
        if request.residentKey { parameters[.int(0x07)] = .map(["rk": true]) }
        if let token {
            parameters[.int(0x08)] = .bytes(token.authenticate(request.clientDataHash))
            parameters[.int(0x09)] = .int(token.pinProtocol.version)
        }
        return try AttestationResult(try send(.makeCredential, parameters))
    }
}
