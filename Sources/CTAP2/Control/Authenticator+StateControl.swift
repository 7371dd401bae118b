import CardCrypto

/// State control: a test double sets the card's memory directly instead of driving it through
/// CTAP. Every change is a ``CardMutation`` made durable through the card's ``CardStorage``
/// (a card image journal record), exactly like a change a command makes, so it survives a
/// reopen. Call these between commands, on the thread that drives the card.
extension Authenticator {
    /// Sets the PIN (as setPIN/changePIN would) and resets the retry counter to 8. The PIN must
    /// meet the card's PIN policy: at least the profile's `minPINLength` code points, at most
    /// 63 bytes of UTF-8, no NUL. Any PIN token is forgotten, as after changePIN.
    public func setPIN(_ pin: String) throws(StateControlError) {
        let bytes = Array(pin.utf8)
        guard !bytes.contains(0) else { throw .pinPolicy("it contains a NUL character") }
        guard bytes.count <= 63 else { throw .pinPolicy("it is \(bytes.count) bytes of UTF-8; at most 63 fit") }
        let codePoints = pin.unicodeScalars.count
        guard codePoints >= profile.minPINLength else {
            throw .pinPolicy("it has \(codePoints) code points; the profile's minimum is \(profile.minPINLength)")
        }
        try write([.setPIN(hash: Array(SHA256.hash(bytes).prefix(16)), codePoints: codePoints)])
        volatile.token = nil
        volatile.consecutivePINFailures = 0
    }

    /// Sets the PIN retry counter: 0 blocks the PIN until a reset (CTAP 2.1 §6.5.2.2).
    public func setPINRetries(_ retries: Int) throws(StateControlError) {
        guard (0...CardState.maximumPINRetries).contains(retries) else { throw .retriesOutOfRange(retries) }
        try write([.setPINRetries(retries)])
    }

    /// Sets the global signature counter (the next assertion reports `counter + 1`).
    public func setSignatureCounter(_ counter: UInt32) throws(StateControlError) {
        try write([.setSignatureCounter(counter)])
    }

    /// Puts a credential on the card (see ``CredentialSeed``) and returns its record, with the
    /// credential ID and public key. A discoverable credential replaces the card's credential
    /// for the same RP and user handle, as makeCredential does; the signature counter is not
    /// touched. A non-discoverable credential changes nothing on the card: its ID is minted.
    @discardableResult
    public func addCredential(_ seed: CredentialSeed) throws(StateControlError) -> CredentialRecord {
        guard !seed.rpId.isEmpty else { throw .invalidCredential("the RP ID is empty") }
        guard seed.user.id.count <= 64 else {
            throw .invalidCredential("the user handle is \(seed.user.id.count) bytes; at most 64 are allowed")
        }
        if seed.discoverable && seed.user.id.isEmpty {
            throw .invalidCredential("a discoverable credential needs a user handle")
        }
        guard (1...3).contains(seed.credProtect) else {
            throw .invalidCredential("credProtect must be 1, 2 or 3, not \(seed.credProtect)")
        }
        if seed.credProtect > 1 && !profile.supportsCredProtect {
            throw .invalidCredential("the \(profile.name) profile has no credProtect extension")
        }
        if seed.hmacSecret && !profile.supportsHMACSecret {
            throw .invalidCredential("the \(profile.name) profile has no hmac-secret extension")
        }
        let key = seed.privateKey ?? newPrivateKey()
        let contents = CredentialWrapper.Contents(privateKey: key.rawScalar, discoverable: seed.discoverable,
                                                  hmacSecret: seed.hmacSecret, credProtect: seed.credProtect)
        let id = wrapper.wrap(contents, rpIdHash: SHA256.hash(Array(seed.rpId.utf8)), iv: randomBytes(16))
        let record = CredentialRecord(
            id: id, rpId: seed.rpId, rpName: seed.rpName, user: seed.user, discoverable: seed.discoverable,
            publicKey: key.publicKey, credProtect: seed.credProtect, hmacSecret: seed.hmacSecret)
        guard seed.discoverable else { return record }

        var mutations: [CardMutation] = []
        let replaced = residentCredentials(rpId: seed.rpId).first { $0.userId == seed.user.id }
        if let replaced {
            mutations.append(.removeCredential(id: replaced.id))
        } else if state.residentCredentials.count >= profile.residentKeyCapacity {
            throw .keyStoreFull(capacity: profile.residentKeyCapacity)
        }
        mutations.append(.addCredential(ResidentCredential(
            id: id, rpId: seed.rpId, rpName: seed.rpName, userId: seed.user.id, userName: seed.user.name,
            userDisplayName: seed.user.displayName, privateKey: key.rawScalar, credProtect: seed.credProtect,
            hmacSecret: seed.hmacSecret, serial: state.nextCredentialSerial)))
        try write(mutations)
        return record
    }

    /// Deletes a discoverable credential.
    public func removeCredential(id: [UInt8]) throws(StateControlError) {
        guard residentIndex[id] != nil else { throw .noSuchCredential(id) }
        try write([.removeCredential(id: id)])
    }

    /// The discoverable credentials on the card, oldest first, with their public keys.
    public var credentialRecords: [CredentialRecord] {
        state.residentCredentials.compactMap { credential in
            // A stored scalar that is not a P-256 key cannot come from a valid image.
            guard let key = try? P256PrivateKey(rawScalar: credential.privateKey) else { return nil }
            return CredentialRecord(
                id: credential.id, rpId: credential.rpId, rpName: credential.rpName,
                user: CredentialUser(id: credential.userId, name: credential.userName, displayName: credential.userDisplayName),
                discoverable: true, publicKey: key.publicKey, credProtect: credential.credProtect,
                hmacSecret: credential.hmacSecret)
        }
    }

    /// Whether three wrong PINs since power-up block PIN use until the card is power-cycled
    /// (CTAP 2.1 PIN_AUTH_BLOCKED; volatile, unlike the retry counter).
    public var isPINAuthBlocked: Bool { volatile.consecutivePINFailures >= 3 }

    /// The current PIN's length in Unicode code points (0 when no PIN is set).
    public var pinLength: Int { state.isPINSet ? state.pinCodePoints : 0 }

    private func write(_ mutations: [CardMutation]) throws(StateControlError) {
        do {
            try persist(mutations)
        } catch {
            throw .writeFailed
        }
    }
}
