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
    static func run<T>(_ client: CTAPClient, _ operation: String, _ body: () throws(CTAPClientError) -> T) throws(ArculusFidoError) -> T {
        do {
            return try body()
        } catch {
            throw mapped(error, client, operation)
        }
    }

    private static func mapped(_ error: CTAPClientError, _ client: CTAPClient, _ operation: String) -> ArculusFidoError {
        var retries: Int?
        if let status = error.ctapStatus, status == .pinInvalid || status == .pinAuthBlocked {
            retries = try? client.pinRetries().retries
        }
        return ArculusFidoError(error, during: operation, pinRetries: retries)
    }

    static func token(_ client: CTAPClient, pin: String, _ permissions: TokenPermissions, rpID: String?,
                      _ operation: String) throws(ArculusFidoError) -> PINUVAuthToken {
        if client.info.isPINSet == false {
            throw ArculusFidoError(.getPINTokenFailed, "\(operation): the card has no PIN yet; set one with setPin first",
                                   ctapStatus: .pinNotSet)
        }
        return try run(client, operation) { () throws(CTAPClientError) in
            try client.pinToken(pin: pin, permissions: permissions, rpID: rpID)
        }
    }

    static func setPIN(_ client: CTAPClient, _ pin: String, _ operation: String) throws(ArculusFidoError) {
        if client.info.isPINSet == true {
            throw ArculusFidoError(.unknown, "\(operation): the card already has a PIN; change it with changePin(oldPin:newPin:), or erase the card with resetDevice")
        }
        try run(client, operation) { () throws(CTAPClientError) in try client.setPIN(pin) }
    }

    static func changePIN(_ client: CTAPClient, from oldPIN: String, to newPIN: String, _ operation: String) throws(ArculusFidoError) {
        if client.info.isPINSet == false {
            throw ArculusFidoError(.getPINTokenFailed, "\(operation): the card has no PIN yet; set one with setPin first",
                                   ctapStatus: .pinNotSet)
        }
        try run(client, operation) { () throws(CTAPClientError) in try client.changePIN(from: oldPIN, to: newPIN) }
    }

    /// A verified discoverable registration.
    static func register(_ client: CTAPClient, pin: String, relyingParty: RelyingPartyEntity, user: UserEntity,
                         clientData: ClientDataJSON, algorithms: [Int] = [COSEPublicKey.es256],
                         excludeList: [CredentialDescriptor] = [], _ operation: String) throws(ArculusFidoError) -> AttestationResult {
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
                             allowList: [CredentialDescriptor], username: String?, _ operation: String) throws(ArculusFidoError) -> AssertionResult {
        let token = try token(client, pin: pin, .getAssertion, rpID: rpID, operation)
        let request = GetAssertionRequest(rpID: rpID, clientDataHash: clientDataHash, allowList: allowList)
        let assertion: AssertionResult
        if !allowList.isEmpty || username == nil {
            assertion = try run(client, operation) { () throws(CTAPClientError) in try client.getAssertion(request, token: token) }
        } else {
            let all = try run(client, operation) { () throws(CTAPClientError) in try client.getAssertions(request, token: token) }
            let handle = userHandle(for: username ?? "")
            guard let mine = all.first(where: { $0.user?.name == username || $0.user?.id == handle }) else {
                throw ArculusFidoError(.userNotFound, "\(operation): the card has \(all.count) credential(s) for \(rpID), none of them for '\(username ?? "")'")
            }
            assertion = mine
        }
        try AttestationCheck.check(assertion, rpID: rpID, operation: operation)
        return assertion
    }

    static func delete(_ client: CTAPClient, pin: String, credentialID: [UInt8], _ operation: String) throws(ArculusFidoError) {
        let token = try token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        try run(client, operation) { () throws(CTAPClientError) in try client.deleteCredential(id: credentialID, token: token) }
    }

    static func list(_ client: CTAPClient, pin: String, rpID: String?, _ operation: String) throws(ArculusFidoError) -> [StoredCredential] {
        let token = try token(client, pin: pin, .credentialManagement, rpID: nil, operation)
        return try run(client, operation) { () throws(CTAPClientError) in
            if let rpID { return try client.credentials(of: RelyingPartyEntity(id: rpID), token: token) }
            return try client.allCredentials(token: token)
        }
    }

    static func reset(_ client: CTAPClient, newPIN: String, _ operation: String) throws(ArculusFidoError) {
        try run(client, operation) { () throws(CTAPClientError) in try client.reset() }
        try setPIN(client, newPIN, operation)
    }
}
