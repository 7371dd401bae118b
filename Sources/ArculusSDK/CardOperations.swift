import CBOR
import CTAPClient
import CardCrypto
import FIDOWire

/// The card steps of the SDK operations, on an open client (run on the card queue). Each maps
/// client errors to the vendor codes, reading the PIN retry counter when a PIN was refused so the
/// message can say how many attempts are left.
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
    static func run<T>(_ client: CTAPClient, _ operation: ArculusFidoOperation, _ body: () throws(CTAPClientError) -> T) throws(ArculusFidoError) -> T {
        do {
            return try body()
        } catch {
            throw mapped(error, client, operation)
        }
    }

    private static func mapped(_ error: CTAPClientError, _ client: CTAPClient, _ operation: ArculusFidoOperation) -> ArculusFidoError {
        var retries: Int?
        if let status = error.ctapStatus, status == .pinInvalid || status == .pinAuthBlocked {
            retries = try? client.pinRetries().retries
        }
        return ArculusFidoError(error, during: operation, pinRetries: retries)
    }

    static func token(_ client: CTAPClient, pin: String, _ permissions: TokenPermissions, rpID: String?,
                      _ operation: ArculusFidoOperation) throws(ArculusFidoError) -> PINUVAuthToken {
        if client.info.isPINSet == false {
            throw noPIN(operation)
        }
        return try run(client, operation) { () throws(CTAPClientError) in
            try client.pinToken(pin: pin, permissions: permissions, rpID: rpID)
        }
    }

    /// 608 for an operation that needs a PIN on a card without one.
    private static func noPIN(_ operation: ArculusFidoOperation) -> ArculusFidoError {
        ArculusFidoError(.getPINTokenFailed, during: operation, "the card has no PIN yet; set one with \(call: .setPin) first",
                         ctapStatus: .pinNotSet)
    }

    /// Sets the first PIN; `parameter` names it in an error (`pin` of setPin, resetDevice, ...).
    static func setPIN(_ client: CTAPClient, _ pin: String, _ operation: ArculusFidoOperation,
                       parameter: ArculusFidoParameter = .pin) throws(ArculusFidoError) {
        if client.info.isPINSet == true {
            throw ArculusFidoError(.unknown, during: operation,
                                   "the card already has a PIN; change it with \(call: .changePin), or erase the card with \(call: .resetDevice)")
        }
        try InputCheck(operation: operation).newPINFitsCard(pin, parameter, minimum: client.info.minPINLength)
        try run(client, operation) { () throws(CTAPClientError) in try client.setPIN(pin) }
    }

    static func changePIN(_ client: CTAPClient, from oldPIN: String, to newPIN: String, _ operation: ArculusFidoOperation) throws(ArculusFidoError) {
        if client.info.isPINSet == false { throw noPIN(operation) }
        try InputCheck(operation: operation).newPINFitsCard(newPIN, .newPin, minimum: client.info.minPINLength)
        try run(client, operation) { () throws(CTAPClientError) in try client.changePIN(from: oldPIN, to: newPIN) }
    }

    /// A verified discoverable registration. The user's name and display name are cut to CTAP's
    /// 64 bytes (``UserText``).
    static func register(_ client: CTAPClient, pin: String, relyingParty: RelyingPartyEntity, user given: UserEntity,
                         clientData: ClientDataJSON, algorithms: [Int] = [COSEPublicKey.es256],
                         excludeList: [CredentialDescriptor] = [], _ operation: ArculusFidoOperation) throws(ArculusFidoError) -> AttestationResult {
        let user = UserEntity(id: given.id, name: given.name.map(UserText.truncated),
                              displayName: given.displayName.map(UserText.truncated))
        let token = try token(client, pin: pin, .makeCredential, rpID: relyingParty.id, operation)
        let request = MakeCredentialRequest(clientDataHash: clientData.hash, relyingParty: relyingParty, user: user,
                                            algorithms: algorithms, excludeList: excludeList, residentKey: true)
        let result = try run(client, operation) { () throws(CTAPClientError) in
            try client.makeCredential(request, token: token)
        }
        try AttestationCheck.verify(result, clientDataHash: clientData.hash, rpID: relyingParty.id, operation: operation)
        return result
    }

    /// An assertion: over `allowList` when it has entries, else over the card's discoverable
    /// credentials for the RP, picking `username`'s (603 when the card has credentials for the RP
    /// but none of them is the user's).
    static func authenticate(_ client: CTAPClient, pin: String, rpID: String, clientDataHash: [UInt8],
                             allowList: [CredentialDescriptor], username: String?, _ operation: ArculusFidoOperation) throws(ArculusFidoError) -> AssertionResult {
        let token = try token(client, pin: pin, .getAssertion, rpID: rpID, operation)
        let request = GetAssertionRequest(rpID: rpID, clientDataHash: clientDataHash, allowList: allowList)
        let assertion: AssertionResult
        if !allowList.isEmpty || username == nil {
            assertion = try run(client, operation) { () throws(CTAPClientError) in try client.getAssertion(request, token: token) }
        } else {
            let all = try run(client, operation) { () throws(CTAPClientError) in try client.getAssertions(request, token: token) }
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

    static func delete(_ client: CTAPClient, pin: String, credentialID: [UInt8], _ operation: ArculusFidoOperation) throws(ArculusFidoError) {
        let token = try token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        try run(client, operation) { () throws(CTAPClientError) in try client.deleteCredential(id: credentialID, token: token) }
    }

    static func list(_ client: CTAPClient, pin: String, rpID: String?, _ operation: ArculusFidoOperation) throws(ArculusFidoError) -> [StoredCredential] {
        let token = try token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        return try run(client, operation) { () throws(CTAPClientError) in
            if let rpID { return try client.credentials(of: RelyingPartyEntity(id: rpID), token: token) }
            return try client.allCredentials(token: token)
        }
    }

    /// Erases the card and sets `newPIN`, which is first checked against the card's PIN policy so
    /// that a PIN it would refuse does not leave an erased card without one.
    static func reset(_ client: CTAPClient, newPIN: String, _ operation: ArculusFidoOperation) throws(ArculusFidoError) {
        try InputCheck(operation: operation).newPINFitsCard(newPIN, .pin, minimum: client.info.minPINLength)
        try run(client, operation) { () throws(CTAPClientError) in try client.reset() }
        try setPIN(client, newPIN, operation)
    }
}
