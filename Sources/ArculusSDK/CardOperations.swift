import CBOR
import CTAPClient
import CardCrypto
import FIDOWire

/// The card steps of the SDK operations, on an open client (in the tap's task, ``CardTap``).
/// Each maps client errors to the vendor codes, reading the PIN retry counter when a PIN was
/// refused so the message can say how many attempts are left.
///
/// That reading is a second round trip after a refused PIN: CTAP's error responses are one
/// status byte (CTAP 2.1 §6.5.5.7: `CTAP2_ERR_PIN_INVALID` carries nothing else), so the count
/// comes only from getPINRetries (§6.5.5.2), asked after the refusal. It is skipped where the
/// status says it (`CTAP2_ERR_PIN_BLOCKED`: none left).
enum CardOperations {
    /// The user handle the SDK gives a registration made without a server-chosen one: the UTF-8
    /// username when it fits WebAuthn's 64 bytes, else its SHA-256. Deterministic, so that
    /// authenticateCardOnly can recognise the user's credential even when the card reveals only
    /// the handle.
    static func userHandle(for username: String) -> [UInt8] {
        let bytes = Array(username.utf8)
        return bytes.count <= 64 ? bytes : SHA256.hash(bytes)
    }

    /// Runs client calls, mapping their errors.
    static func run<T>(_ client: AsyncCTAPClient, _ operation: ArculusFidoOperation,
                       _ body: () async throws(CTAPClientError) -> T) async throws(ArculusFidoError) -> T {
        do {
            return try await body()
        } catch {
            throw await mapped(error, client, operation)
        }
    }

    private static func mapped(_ error: CTAPClientError, _ client: AsyncCTAPClient, _ operation: ArculusFidoOperation) async -> ArculusFidoError {
        var retries: Int?
        if let status = error.ctapStatus, status == .pinInvalid || status == .pinAuthBlocked {
            retries = try? await client.pinRetries().retries
        }
        return ArculusFidoError(error, during: operation, pinRetries: retries)
    }

    static func token(_ client: AsyncCTAPClient, pin: String, _ permissions: TokenPermissions, rpID: String?,
                      _ operation: ArculusFidoOperation) async throws(ArculusFidoError) -> PINUVAuthToken {
        if client.info.isPINSet == false {
            throw noPIN(operation)
        }
        return try await run(client, operation) { () throws(CTAPClientError) in
            try await client.pinToken(pin: pin, permissions: permissions, rpID: rpID)
        }
    }

    /// 608 for an operation that needs a PIN on a card without one.
    private static func noPIN(_ operation: ArculusFidoOperation) -> ArculusFidoError {
        ArculusFidoError(.getPINTokenFailed, during: operation, "the card has no PIN yet; set one with \(call: .setPin) first",
                         ctapStatus: .pinNotSet)
    }

    /// Sets the first PIN; `parameter` names it in an error (`pin` of setPin, resetDevice, ...).
    static func setPIN(_ client: AsyncCTAPClient, _ pin: String, _ operation: ArculusFidoOperation,
                       parameter: ArculusFidoParameter = .pin) async throws(ArculusFidoError) {
        if client.info.isPINSet == true {
            throw ArculusFidoError(.unknown, during: operation,
                                   "the card already has a PIN; change it with \(call: .changePin), or erase the card with \(call: .resetDevice)")
        }
        try InputCheck(operation: operation).newPINFitsCard(pin, parameter, minimum: client.info.minPINLength)
        try await run(client, operation) { () throws(CTAPClientError) in try await client.setPIN(pin) }
    }

    static func changePIN(_ client: AsyncCTAPClient, from oldPIN: String, to newPIN: String, _ operation: ArculusFidoOperation) async throws(ArculusFidoError) {
        if client.info.isPINSet == false { throw noPIN(operation) }
        try InputCheck(operation: operation).newPINFitsCard(newPIN, .newPin, minimum: client.info.minPINLength)
        try await run(client, operation) { () throws(CTAPClientError) in try await client.changePIN(from: oldPIN, to: newPIN) }
    }

    /// A verified discoverable registration. The user's name and display name are cut to CTAP's
    /// 64 bytes (``UserText``).
    static func register(_ client: AsyncCTAPClient, pin: String, relyingParty: RelyingPartyEntity, user given: UserEntity,
                         clientData: ClientDataJSON, algorithms: [Int] = [COSEPublicKey.es256],
                         excludeList: [CredentialDescriptor] = [], _ operation: ArculusFidoOperation) async throws(ArculusFidoError) -> AttestationResult {
        let user = UserEntity(id: given.id, name: given.name.map(UserText.truncated),
                              displayName: given.displayName.map(UserText.truncated))
        let token = try await token(client, pin: pin, .makeCredential, rpID: relyingParty.id, operation)
        let request = MakeCredentialRequest(clientDataHash: clientData.hash, relyingParty: relyingParty, user: user,
                                            algorithms: algorithms, excludeList: excludeList, residentKey: true)
        let result = try await run(client, operation) { () throws(CTAPClientError) in
            try await client.makeCredential(request, token: token)
        }
        try AttestationCheck.verify(result, clientDataHash: clientData.hash, rpID: relyingParty.id, operation: operation)
        return result
    }

    /// An assertion: over `allowList` when it has entries, else over the card's discoverable
    /// credentials for the RP, picking `username`'s (603 when the card has credentials for the RP
    /// but none of them is the user's).
    static func authenticate(_ client: AsyncCTAPClient, pin: String, rpID: String, clientDataHash: [UInt8],
                             allowList: [CredentialDescriptor], username: String?, _ operation: ArculusFidoOperation) async throws(ArculusFidoError) -> AssertionResult {
        let token = try await token(client, pin: pin, .getAssertion, rpID: rpID, operation)
        let request = GetAssertionRequest(rpID: rpID, clientDataHash: clientDataHash, allowList: allowList)
        let assertion: AssertionResult
        if !allowList.isEmpty || username == nil {
            assertion = try await run(client, operation) { () throws(CTAPClientError) in try await client.getAssertion(request, token: token) }
        } else {
            let all = try await run(client, operation) { () throws(CTAPClientError) in try await client.getAssertions(request, token: token) }
            let handle = userHandle(for: username ?? "")
            let name = UserText.truncated(username ?? "")
            guard let mine = all.first(where: { $0.user?.name == name || $0.user?.id == handle }) else {
                throw ArculusFidoError(.userNotFound, during: operation,
                                       "the card has \(all.count) credential(s) for \(rpID), none of them for '\(username ?? "")'")
            }
            assertion = mine
        }
        try AttestationCheck.check(assertion, rpID: rpID, operation: operation)
        return assertion
    }

    static func delete(_ client: AsyncCTAPClient, pin: String, credentialID: [UInt8], _ operation: ArculusFidoOperation) async throws(ArculusFidoError) {
        let token = try await token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        try await run(client, operation) { () throws(CTAPClientError) in try await client.deleteCredential(id: credentialID, token: token) }
    }

    static func list(_ client: AsyncCTAPClient, pin: String, rpID: String?, _ operation: ArculusFidoOperation) async throws(ArculusFidoError) -> [StoredCredential] {
        let token = try await token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        return try await run(client, operation) { () throws(CTAPClientError) in
            if let rpID { return try await client.credentials(of: RelyingPartyEntity(id: rpID), token: token) }
            return try await client.allCredentials(token: token)
        }
    }

    /// Erases the card and sets `newPIN`, which is first checked against the card's PIN policy so
    /// that a PIN it would refuse does not leave an erased card without one.
    static func reset(_ client: AsyncCTAPClient, newPIN: String, _ operation: ArculusFidoOperation) async throws(ArculusFidoError) {
        try InputCheck(operation: operation).newPINFitsCard(newPIN, .pin, minimum: client.info.minPINLength)
        try await run(client, operation) { () throws(CTAPClientError) in try await client.reset() }
        try await setPIN(client, newPIN, operation)
    }
}
