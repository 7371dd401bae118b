import CardCrypto
import FIDOWire

/// State control: a test double sets the card's memory directly instead of driving it through
/// CTAP. Each control returns the ``CardMutation``s it makes, exactly like a command: the caller
/// makes them durable (a card image journal record) and then ``commit(_:)``s them, so a change
/// survives a reopen. Call these between commands.
extension Authenticator {
    /// The changes that set the PIN (as setPIN/changePIN would) and put the retry counter back to
    /// 8. The PIN must meet the card's PIN policy (``PINPolicy``). Once committed, any PIN token
    /// is forgotten, as after changePIN (see ``forgetPINSession()``).
    public func changesSettingPIN(_ pin: String) throws(StateControlError) -> [CardMutation] {
        let accepted: PINPolicy.AcceptedPIN
        do {
            accepted = try pinPolicy.check(Array(pin.utf8))
        } catch {
            throw .pinPolicy(error.description)
        }
        return [.setPIN(hash: accepted.hash, codePoints: accepted.codePoints)]
    }

    /// The change that removes the PIN, its retries back to the maximum (nothing when no PIN is set).
    public func changesClearingPIN() -> [CardMutation] {
        state.isPINSet || state.pinRetries != CardState.maximumPINRetries ? [.clearPIN] : []
    }

    /// Forgets the PIN token and the wrong-PIN streak, as a new PIN does.
    public mutating func forgetPINSession() {
        session.token.stopUsing()
        session.consecutivePINFailures = 0
    }

    /// The change that sets the PIN retry counter: 0 blocks the PIN until a reset (CTAP 2.1 §6.5.2.2).
    public func changesSettingPINRetries(_ retries: Int) throws(StateControlError) -> [CardMutation] {
        guard (0...CardState.maximumPINRetries).contains(retries) else { throw .retriesOutOfRange(retries) }
        return [.setPINRetries(retries)]
    }

    /// The change that sets the global signature counter (the next assertion reports `counter + 1`).
    public func changesSettingSignatureCounter(_ counter: UInt32) -> [CardMutation] {
        [.setSignatureCounter(counter)]
    }

    /// Makes a credential as ``CredentialSeed`` describes it: its record (ID, public key), and the
    /// changes that store it. A discoverable credential replaces the card's credential for the
    /// same RP and user handle, as makeCredential does; the signature counter is not touched. A
    /// non-discoverable credential changes nothing on the card (no changes): its ID is minted.
    public mutating func credentialAdding(_ seed: CredentialSeed) throws(StateControlError) -> (record: CredentialRecord, changes: [CardMutation]) {
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
        let algorithm = seed.keyAlgorithm
        guard profile.algorithms.contains(algorithm.rawValue) else {
            throw .invalidCredential("the \(profile.name) profile has no \(algorithm.name) credentials "
                                     + "(it offers \(profile.algorithms.compactMap { SignatureAlgorithm(rawValue: $0)?.name }.joined(separator: ", ")))")
        }
        // A drawn key of another algorithm than ES256 comes from a seed, as makeCredential's do,
        // so that a non-discoverable credential's ID stays short; a given key is carried whole.
        let drawnSeed = seed.privateKey == nil && algorithm != .es256 ? random.bytes(32) : nil
        let material: CredentialKeyMaterial
        let key: CredentialPrivateKey
        do {
            if let given = seed.privateKey {
                key = given
                material = CredentialKeyMaterial(algorithm: algorithm, privateKeyBytes: given.privateKeyBytes)
            } else if let drawnSeed {
                material = .seed(algorithm, drawnSeed)
                key = try material.makeKey()
            } else {
                let drawn = random.p256Key()
                key = CredentialPrivateKey(drawn)
                material = .p256Scalar(drawn.rawScalar)
            }
        } catch {
            throw .invalidCredential("making a \(algorithm.name) key failed: \(error)")
        }
        // A non-discoverable credential's ID carries its key; a given key too large for one (an
        // RSA key) can only be discoverable, whose ID names the stored key (it then wraps a seed,
        // as makeCredential's IDs do).
        let maximumID = profile.maxCredentialIdLength
        let tooLong = { (length: Int) -> StateControlError in
            .invalidCredential("a \(algorithm.name) key this size does not fit a non-discoverable credential ID "
                               + "(\(length) bytes of key; the profile's IDs are at most \(maximumID) bytes); make it discoverable")
        }
        let fits = material.bytes.count <= CredentialWrapper.maximumKeyBytes
        guard fits || seed.discoverable else { throw tooLong(material.bytes.count) }
        let contents = CredentialWrapper.Contents(key: fits ? material : .seed(algorithm, random.bytes(32)),
                                                  discoverable: seed.discoverable, hmacSecret: seed.hmacSecret,
                                                  credProtect: seed.credProtect)
        let id = memory.wrapper.padded(memory.wrapper.wrap(contents, rpIdHash: SHA256.hash(Array(seed.rpId.utf8)), iv: random.bytes(16)),
                                       to: profile.behaviour.credentialIdLength)
        guard id.count <= profile.maxCredentialIdLength || seed.discoverable else { throw tooLong(material.bytes.count) }
        let record = CredentialRecord(
            id: id, rpId: seed.rpId, rpName: seed.rpName, user: seed.user, discoverable: seed.discoverable,
            publicKey: key.publicKey, credProtect: seed.credProtect, hmacSecret: seed.hmacSecret)
        guard seed.discoverable else { return (record, []) }

        var changes: [CardMutation] = []
        let replaced = memory.residentCredentials(rpId: seed.rpId).first { $0.userId == seed.user.id }
        if let replaced {
            changes.append(.removeCredential(id: replaced.id))
        } else if state.residentCredentials.count >= profile.residentKeyCapacity {
            throw .keyStoreFull(capacity: profile.residentKeyCapacity)
        }
        changes.append(.addCredential(ResidentCredential(
            id: id, rpId: seed.rpId, rpName: seed.rpName, userId: seed.user.id, userName: seed.user.name,
            userDisplayName: seed.user.displayName, algorithm: algorithm.rawValue, privateKey: key.privateKeyBytes,
            credProtect: seed.credProtect,
            hmacSecret: seed.hmacSecret, serial: state.nextCredentialSerial)))
        return (record, changes)
    }

    /// The change that deletes a discoverable credential.
    public func changesRemovingCredential(id: [UInt8]) throws(StateControlError) -> [CardMutation] {
        guard memory.residentCredential(id: id) != nil else { throw .noSuchCredential(id) }
        return [.removeCredential(id: id)]
    }

    /// The discoverable credentials on the card, oldest first, each with its algorithm and
    /// public key — every algorithm the profile has, made over CTAP or added here.
    public var credentialRecords: [CredentialRecord] {
        state.residentCredentials.compactMap { credential in
            // A stored key that makes no key cannot come from a valid image (loading checks it).
            guard let key = try? credential.contents.key.makeKey() else { return nil }
            return CredentialRecord(
                id: credential.id, rpId: credential.rpId, rpName: credential.rpName,
                user: CredentialUser(id: credential.userId, name: credential.userName, displayName: credential.userDisplayName),
                discoverable: true, publicKey: key.publicKey, credProtect: credential.credProtect,
                hmacSecret: credential.hmacSecret)
        }
    }

    /// Whether three wrong PINs since power-up block PIN use until the card is power-cycled
    /// (CTAP 2.1 PIN_AUTH_BLOCKED; volatile, unlike the retry counter).
    public var isPINAuthBlocked: Bool { session.consecutivePINFailures >= 3 }

    /// The current PIN's length in Unicode code points (0 when no PIN is set).
    public var pinLength: Int { state.isPINSet ? state.pinCodePoints : 0 }

    /// Applies changes the caller made durable (a state control's, or a command's through
    /// ``finish(_:durable:)``).
    public mutating func commitChanges(_ changes: [CardMutation]) {
        commit(changes)
        // A counter a test set is the next one handed out from (no reservation ahead of it).
        if changes.contains(where: { if case .setSignatureCounter = $0 { true } else { false } }) {
            memory.resetSignatureCounterToDurable()
        }
    }
}
