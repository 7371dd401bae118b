import CBOR

extension CTAPClient {
    /// authenticatorGetAssertion (CTAP 2.1 §6.2): the first assertion. Its
    /// ``AssertionResult/numberOfCredentials`` says how many more ``getNextAssertion()`` gives.
    public func getAssertion(_ request: GetAssertionRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> AssertionResult {
        var parameters: CBORMap = [
            .int(0x01): .text(request.rpID),
            .int(0x02): .bytes(request.clientDataHash),
        ]
        if !request.allowList.isEmpty { parameters[.int(0x03)] = .array(request.allowList.map(\.cbor)) }
        if !request.userPresence { parameters[.int(0x05)] = .map(["up": false]) }
        if let token {
            parameters[.int(0x06)] = .bytes(token.authenticate(request.clientDataHash))
            parameters[.int(0x07)] = .int(token.pinProtocol.version)
        }
        return try AssertionResult(try send(.getAssertion, parameters), allowList: request.allowList)
    }

    /// authenticatorGetNextAssertion (CTAP 2.1 §6.3): the next of the credentials the last
    /// getAssertion found.
    public func getNextAssertion() throws(CTAPClientError) -> AssertionResult {
        try AssertionResult(try send(.getNextAssertion))
    }

    /// getAssertion followed by as many getNextAssertion as the card announces: every assertion.
    public func getAssertions(_ request: GetAssertionRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> [AssertionResult] {
        let first = try getAssertion(request, token: token)
        var all = [first]
        let total = first.numberOfCredentials ?? 1
        while all.count < total {
            all.append(try getNextAssertion())
        }
        return all
    }
}
