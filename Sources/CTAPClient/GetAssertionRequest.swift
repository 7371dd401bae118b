/// The parameters of authenticatorGetAssertion (CTAP 2.1 §6.2) a platform chooses.
public struct GetAssertionRequest: Sendable {
    /// The RP ID.
    public var rpID: String
    /// SHA-256 of the clientDataJSON.
    public var clientDataHash: [UInt8]
    /// The credentials the RP accepts; empty to let the card pick its discoverable ones.
    public var allowList: [CredentialDescriptor]
    /// Ask for user presence (option `up`, true unless a platform pre-flights).
    public var userPresence: Bool

    /// A request for `rpID` over `clientDataHash`.
    public init(rpID: String, clientDataHash: [UInt8], allowList: [CredentialDescriptor] = [], userPresence: Bool = true) {
        self.rpID = rpID
        self.clientDataHash = clientDataHash
        self.allowList = allowList
        self.userPresence = userPresence
    }
}
