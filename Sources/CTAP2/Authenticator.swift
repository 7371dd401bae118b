import CBOR
import CardCrypto
import FIDOWire

/// The CTAP 2.1 authenticator of the emulated card: command dispatch, non-volatile state
/// (through a `CardStorage`) and the volatile state a card loses when it leaves the NFC field.
///
/// Not thread-safe: a card answers one command at a time, and so does this type. Callers that
/// share one card between threads serialise access (the reader bridge does).
public final class Authenticator {
    /// The card model this authenticator presents.
    public let profile: CardProfile
    /// The card's non-volatile memory as last made durable.
    public private(set) var state: CardState
    /// The attestation key and certificate chain used for `packed` attestation and U2F.
    public let attestation: AttestationIdentity

    /// Asked whenever the card needs evidence of user presence. A card in the NFC field counts as
    /// present, so the default answers yes; tests can decline.
    public var userPresence: () -> Bool = { true }
    /// Monotonic seconds, for the getNextAssertion and reset time windows. Replaceable in tests.
    public var clock: () -> Double = { Authenticator.monotonicSeconds() }
    /// Where the card's random values come from (see `CardEntropy`).
    public let entropy: CardEntropy
    /// Test-double hooks (see `AuthenticatorFaultInjector`); nil on a card that injects no faults.
    public var faultInjector: (any AuthenticatorFaultInjector)?
    /// Source of every random value the card draws.
    let randomBytes: (Int) -> [UInt8]

    let storage: CardStorage
    var wrapper: CredentialWrapper
    var volatile: VolatileState
    /// Discoverable credentials by ID → position in `state.residentCredentials`.
    var residentIndex: [[UInt8]: Int] = [:]
    /// RP ID → positions of its discoverable credentials, oldest first.
    var rpIndex: [String: [Int]] = [:]
    /// RP ID hash → RP ID, for credential management look-ups by hash.
    var rpIdHashes: [[UInt8]: String] = [:]

    /// What the card forgets at power-off (CTAP 2.1 §6.5.5.1 and the NFC binding).
    struct VolatileState {
        var keyAgreementKey: P256PrivateKey
        var token: PINUVAuthToken?
        var consecutivePINFailures = 0
        var pendingAssertions: PendingAssertions?
        var rpEnumeration: [String]?
        var credentialEnumeration: [ResidentCredential]?
        var poweredOnAt: Double
        /// Credential keys already imported for signing, by credential ID (see `signingKey`).
        var signingKeys: [[UInt8]: P256PrivateKey] = [:]
    }

    /// Opens the card whose memory is in `storage`, creating a blank card there if it is empty.
    public init(profile: CardProfile, storage: CardStorage, attestation: AttestationIdentity,
                entropy: CardEntropy = .system) throws {
        try profile.validate()
        self.profile = profile
        self.storage = storage
        self.attestation = attestation
        self.entropy = entropy
        switch entropy {
        case .system:
            randomBytes = { SecureRandom.bytes($0) }
        case .seeded(let seed):
            let stream = DeterministicRandom(seed: seed)
            randomBytes = { stream.bytes($0) }
        }
        if let stored = try storage.load() {
            state = stored
        } else {
            state = CardState(profile: profile, masterSecret: randomBytes(32))
            try storage.save(state)
        }
        wrapper = CredentialWrapper(masterSecret: state.masterSecret)
        volatile = VolatileState(keyAgreementKey: Self.privateKey(from: randomBytes),
                                 poweredOnAt: Authenticator.monotonicSeconds())
        rebuildIndex()
    }

    // MARK: - Power

    /// The card entered the field: fresh volatile state.
    public func powerOn() {
        resetVolatileState()
    }

    /// The card left the field: PIN token, key-agreement key, consecutive-failure count and
    /// pending assertion/enumeration state are gone.
    public func powerOff() {
        resetVolatileState()
    }

    func resetVolatileState() {
        volatile = VolatileState(keyAgreementKey: newPrivateKey(), poweredOnAt: clock())
    }

    // MARK: - Dispatch

    /// Processes one CTAP2 request (command byte + CBOR parameters) and returns the response
    /// (status byte + CBOR). Never traps on bad input.
    public func process(_ request: [UInt8]) -> [UInt8] {
        guard let commandByte = request.first else { return [CTAPStatus.invalidLength.rawValue] }
        let command = CTAPCommand(rawValue: commandByte)
        if command != .getNextAssertion { volatile.pendingAssertions = nil }
        if command != .credentialManagement {
            volatile.rpEnumeration = nil
            volatile.credentialEnumeration = nil
        }
        if let injected = faultInjector?.commandWillStart(.ctap(commandByte), request: request[...]) {
            faultInjector?.commandDidEnd()
            return [injected]
        }
        defer { faultInjector?.commandDidEnd() }
        do {
            let response = try handle(command, body: request.dropFirst())
            guard let response else { return [CTAPStatus.ok.rawValue] }
            return [CTAPStatus.ok.rawValue] + CBOREncoder.encode(response)
        } catch {
            return [error.rawValue]
        }
    }

    private func handle(_ command: CTAPCommand?, body: ArraySlice<UInt8>) throws(CTAPStatus) -> CBORValue? {
        guard profile.supportsCTAP2, let command else { throw .invalidCommand }
        switch command {
        case .getInfo:
            try requireEmpty(body)
            return getInfo()
        case .makeCredential:
            return try makeCredential(Parameters(decoding: body))
        case .getAssertion:
            return try getAssertion(Parameters(decoding: body))
        case .getNextAssertion:
            try requireEmpty(body)
            return try getNextAssertion()
        case .clientPIN:
            return try clientPIN(Parameters(decoding: body))
        case .reset:
            try requireEmpty(body)
            try reset()
            return nil
        case .credentialManagement where profile.credentialManagement:
            return try credentialManagement(Parameters(decoding: body))
        case .selection where profile.supportsCTAP21:
            try requireEmpty(body)
            guard isUserPresent() else { throw .operationDenied }
            return nil
        default:
            throw .invalidCommand
        }
    }

    private func requireEmpty(_ body: ArraySlice<UInt8>) throws(CTAPStatus) {
        guard body.isEmpty else { throw .invalidLength }
    }

    // MARK: - Persistence

    /// Makes `mutations` durable, then applies them to the in-memory state, before the card
    /// answers. If the write fails the card keeps its previous state and answers CTAP1_ERR_OTHER.
    func persist(_ mutations: CardMutation...) throws(CTAPStatus) {
        try persist(mutations)
    }

    func persist(_ mutations: [CardMutation]) throws(CTAPStatus) {
        if let faultInjector, faultInjector.failsWrite(mutations) { throw .other }
        do {
            try storage.commit(mutations)
        } catch {
            throw .other
        }
        for mutation in mutations { apply(mutation) }
    }

    /// Applies a durable mutation to `state` and keeps the look-up indexes in step.
    private func apply(_ mutation: CardMutation) {
        state.apply(mutation)
        switch mutation {
        case .addCredential(let credential):
            let position = state.residentCredentials.count - 1
            residentIndex[credential.id] = position
            rpIndex[credential.rpId, default: []].append(position)
            rpIdHashes[SHA256.hash(Array(credential.rpId.utf8))] = credential.rpId
        case .removeCredential, .reset:
            volatile.signingKeys.removeAll()
            if case .reset = mutation { wrapper = CredentialWrapper(masterSecret: state.masterSecret) }
            rebuildIndex()
        case .setPIN, .setPINRetries, .setSignatureCounter, .updateUser:
            break
        }
    }

    func rebuildIndex() {
        residentIndex = [:]
        rpIndex = [:]
        rpIdHashes = [:]
        residentIndex.reserveCapacity(state.residentCredentials.count)
        for (position, credential) in state.residentCredentials.enumerated() {
            residentIndex[credential.id] = position
            rpIndex[credential.rpId, default: []].append(position)
        }
        for rpId in rpIndex.keys { rpIdHashes[SHA256.hash(Array(rpId.utf8))] = rpId }
    }

    // MARK: - Randomness

    /// A fresh P-256 key drawn from `randomBytes` (retrying the negligible out-of-range case).
    func newPrivateKey() -> P256PrivateKey {
        Self.privateKey(from: randomBytes)
    }

    private static func privateKey(from randomBytes: (Int) -> [UInt8]) -> P256PrivateKey {
        while true {
            if let key = try? P256PrivateKey(rawScalar: randomBytes(32)) { return key }
        }
    }

    /// Most credential keys `signingKey` keeps imported (a card in use signs with a handful).
    static let signingKeyCacheLimit = 64

    /// The OpenSSL key of a credential, for signing. Importing a scalar (public point, OpenSSL
    /// key objects) costs several times the signature itself, so a key imported once stays in
    /// volatile memory until power-off; a cached key is used only if its scalar is the one given.
    func signingKey(id: [UInt8], scalar: [UInt8]) throws(CTAPStatus) -> P256PrivateKey {
        if let cached = volatile.signingKeys[id], ConstantTime.equals(cached.rawScalar, scalar) { return cached }
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(rawScalar: scalar)
        } catch {
            throw .other
        }
        if volatile.signingKeys.count >= Self.signingKeyCacheLimit { volatile.signingKeys.removeAll(keepingCapacity: true) }
        volatile.signingKeys[id] = key
        return key
    }

    /// ECDSA-SHA256, with RFC 6979 nonces on a seeded card.
    func sign(_ message: [UInt8], with key: P256PrivateKey) throws(CTAPStatus) -> [UInt8] {
        let signature: [UInt8]
        do {
            switch entropy {
            case .system: signature = try key.signature(for: message)
            case .seeded: signature = try key.deterministicSignature(for: message)
            }
        } catch {
            throw .other
        }
        return faultInjector?.signature(signature) ?? signature
    }

    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
