import CardCrypto

/// The card's non-volatile memory as the authenticator uses it: the stored ``CardState`` and what
/// derives from it (look-up indexes, the credential-wrapping keys), and the signature counter as
/// handed out. It changes only through ``apply(_:)``, which the card model calls once a change is
/// durable, and ``advanceSignatureCounter(to:)``; commands never write it.
///
/// RP IDs are compared as bytes (their UTF-8), never as Swift strings: `é` and `e` + U+0301 are
/// different RP IDs to a relying party, and so to the card.
public struct CardMemory: Sendable {
    /// What the card image holds.
    public private(set) var state: CardState
    /// The last signature counter value the card handed out. With a reservation it runs up to
    /// `state.signatureCounter`, which was made durable ahead; after a reopen it starts there,
    /// so it never repeats a value a client has seen.
    public private(set) var signatureCounter: UInt32
    /// Wraps and unwraps credential IDs under the master secret.
    private(set) var wrapper: CredentialWrapper
    /// Discoverable credentials by ID → position in `state.residentCredentials`.
    private(set) var residentIndex: [ByteKey: Int] = [:]
    /// RP ID (UTF-8) → positions of its discoverable credentials, oldest first.
    private(set) var rpIndex: [ByteKey: [Int]] = [:]
    /// RP ID hash → RP ID, for credential management look-ups by hash.
    private(set) var rpIdHashes: [ByteKey: String] = [:]

    /// The memory holding `state`.
    public init(state: CardState) {
        self.state = state
        signatureCounter = state.signatureCounter
        wrapper = CredentialWrapper(masterSecret: state.masterSecret)
        rebuildIndex()
    }

    /// Applies changes that have been made durable, in order, keeping the indexes in step.
    /// In place: the credential list is not copied (a change costs the same on a full card).
    public mutating func apply(_ changes: [CardMutation]) {
        for change in changes { apply(change) }
    }

    private mutating func apply(_ change: CardMutation) {
        state.apply(change)
        switch change {
        case .addCredential(let credential):
            let position = state.residentCredentials.count - 1
            residentIndex[ByteKey(credential.id)] = position
            rpIndex[ByteKey(Array(credential.rpId.utf8)), default: []].append(position)
            rpIdHashes[ByteKey(SHA256.hash(Array(credential.rpId.utf8)))] = credential.rpId
        case .removeCredential:
            rebuildIndex()
        case .reset:
            wrapper = CredentialWrapper(masterSecret: state.masterSecret)
            rebuildIndex()
        case .setSignatureCounter(let ceiling):
            signatureCounter = min(signatureCounter, ceiling)
        case .setPIN, .clearPIN, .setPINRetries, .updateUser, .setPINPolicy, .setAlwaysUv, .enableEnterpriseAttestation,
             .setLargeBlobArray, .setPersistentToken:
            break
        }
    }

    /// Records that the card handed out signature counter value `value` (at most what is durable).
    mutating func advanceSignatureCounter(to value: UInt32) {
        precondition(value <= state.signatureCounter, "counter \(value) handed out beyond the durable \(state.signatureCounter)")
        signatureCounter = value
    }

    /// Sets the counter handed out to the durable value (a test double setting the counter).
    mutating func resetSignatureCounterToDurable() {
        signatureCounter = state.signatureCounter
    }

    private mutating func rebuildIndex() {
        residentIndex = [:]
        rpIndex = [:]
        rpIdHashes = [:]
        residentIndex.reserveCapacity(state.residentCredentials.count)
        for (position, credential) in state.residentCredentials.enumerated() {
            residentIndex[ByteKey(credential.id)] = position
            rpIndex[ByteKey(Array(credential.rpId.utf8)), default: []].append(position)
        }
        for rpId in rpIndex.keys { rpIdHashes[ByteKey(SHA256.hash(rpId.bytes))] = String(decoding: rpId.bytes, as: UTF8.self) }
    }

    // MARK: - Look-ups

    /// Discoverable credentials for an RP, most recently created first.
    func residentCredentials(rpId: String) -> [ResidentCredential] {
        (rpIndex[ByteKey(Array(rpId.utf8))] ?? []).map { state.residentCredentials[$0] }.sorted { $0.serial > $1.serial }
    }

    /// The stored discoverable credential with this ID.
    func residentCredential(id: [UInt8]) -> ResidentCredential? {
        residentIndex[ByteKey(id)].map { state.residentCredentials[$0] }
    }

    /// A credential this card holds for `rpIdHash`: a discoverable one that still exists, or a
    /// non-discoverable one whose ID unwraps. Deleted discoverable credentials are not found.
    func credential(id: [UInt8], rpIdHash: [UInt8]) -> CredentialWrapper.Contents? {
        guard let contents = wrapper.unwrap(id, rpIdHash: rpIdHash) else { return nil }
        if contents.discoverable && residentIndex[ByteKey(id)] == nil { return nil }
        return contents
    }

    /// How many more discoverable credentials fit.
    func remainingDiscoverableCredentials(capacity: Int) -> Int {
        max(0, capacity - state.residentCredentials.count)
    }
}
