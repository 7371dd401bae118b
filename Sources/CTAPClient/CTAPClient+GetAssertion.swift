import CBOR
import FIDOWire

extension CTAPClient {
    /// authenticatorGetAssertion (CTAP 2.1 §6.2): the first assertion. Its
    /// ``AssertionResult/numberOfCredentials`` says how many more ``getNextAssertion()`` gives.
    public func getAssertion(_ request: GetAssertionRequest, token: PINUVAuthToken?) throws(CTAPClientError) -> AssertionResult {
        return try AssertionResult(try send(.getAssertion, request.parameters(token: token)), allowList: request.allowList)
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
