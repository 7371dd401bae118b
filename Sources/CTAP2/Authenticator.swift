import CBOR
import CardCrypto
import FIDOWire

/// The CTAP 2.1 authenticator of the emulated card, as a value: its non-volatile memory
/// (``memory``), what it forgets at power-off (``session``) and its random generator.
///
/// A command is a transition: ``process(_:in:)`` returns a ``CommandOutcome`` — the answer and the
/// changes to the card's memory that must be durable before the answer may leave the card. The
/// caller makes them durable and calls ``finish(_:durable:)``; the authenticator never performs
/// I/O, never reads a clock (time comes in the ``CommandEnvironment``) and never asks anybody
/// anything but the environment it is given.
public struct Authenticator {
    /// The card model this authenticator presents.
    public let profile: CardProfile
    /// The attestation key and certificate chain used for `packed` attestation and U2F.
    public let attestation: AttestationIdentity
    /// Where the card's random values come from.
    public let entropy: CardEntropy
    /// The card's non-volatile memory, as last made durable.
    public internal(set) var memory: CardMemory
    /// What the card forgets when it leaves the field; nil while the card has no power.
    public internal(set) var session: AuthenticatorSession
    var random: CardRandom
    /// The command being processed and what the world says meanwhile (nil between commands).
    var running: (command: CardCommand, environment: CommandEnvironment)?
    /// Why the running command failed inside the card (see ``crypto(_:_:)``).
    var internalFailureReason: String?
    /// A PIN check the running command started: it goes on once the retry decrement is durable.
    var suspendedPINCheck: PINCheck?

    /// An authenticator over the stored memory `state`, or a blank card made from `profile` when
    /// `state` is nil (``isBlank``: the caller stores ``memory`` before using the card). The card
    /// is powered at `now`.
    public init(profile: CardProfile, state: CardState?, attestation: AttestationIdentity,
                entropy: CardEntropy = .system, now: CardInstant) throws(ProfileError) {
        try profile.validate()
        self.profile = profile
        self.attestation = attestation
        self.entropy = entropy
        random = CardRandom(entropy)
        if let state {
            memory = CardMemory(state: state)
            isBlank = false
        } else {
            memory = CardMemory(state: CardState(profile: profile, masterSecret: random.bytes(32)))
            isBlank = true
        }
        session = AuthenticatorSession(at: now, random: &random)
    }

    /// Whether this card was made blank by ``init`` (its memory is not stored anywhere yet).
    public let isBlank: Bool

    /// The card's non-volatile state.
    public var state: CardState { memory.state }

    // MARK: - Power

    /// The card entered the field (or its field was reset): fresh volatile state from `now`.
    public mutating func powerOn(at now: CardInstant) {
        session = AuthenticatorSession(at: now, random: &random)
    }

    /// The card left the field: PIN token, key-agreement key, consecutive-failure count and
    /// pending assertion/enumeration state are gone.
    ///
    /// A key is drawn here too, as the card always did: a seeded card's random stream, and so
    /// every transcript recorded from one, stays as it was.
    public mutating func powerOff(at now: CardInstant) {
        session = AuthenticatorSession(at: now, random: &random)
    }

    // MARK: - Commands

    /// Processes one CTAP2 request (command byte + CBOR parameters). Never traps on bad input.
    public mutating func process(_ request: [UInt8], in environment: CommandEnvironment) -> CommandOutcome {
        guard let commandByte = request.first else { return CommandOutcome(response: [CTAPStatus.invalidLength.rawValue], changes: []) }
        let rollback = CommandOutcome.Rollback(session: session, random: random)
        let command = CTAPCommand(rawValue: commandByte)
        if command != .getNextAssertion { session.pendingAssertions = nil }
        if command != .credentialManagement {
            session.rpEnumeration = nil
            session.credentialEnumeration = nil
        }
        if let injected = environment.faults?.statusInstead(of: .ctap(commandByte)) {
            return CommandOutcome(response: [injected], changes: [], ran: false)
        }
        running = (.ctap(commandByte), environment)
        defer { running = nil }
        var changes: [CardMutation] = []
        let response: [UInt8]
        do {
            let body = try handle(command, body: request.dropFirst(), changes: &changes)
            if let check = suspendedPINCheck {
                suspendedPINCheck = nil
                return CommandOutcome(response: [], changes: changes, rollback: rollback,
                                      continuation: check.resuming(in: environment))
            }
            response = [CTAPStatus.ok.rawValue] + (body.map(CBOREncoder.encode) ?? [])
        } catch {
            // Changes made before the failure stay: a wrong PIN's retry decrement is one.
            defer { internalFailureReason = nil }
            return CommandOutcome(response: [error.rawValue], changes: changes, internalFailure: internalFailureReason,
                                  rollback: changes.isEmpty ? nil : rollback)
        }
        return CommandOutcome(response: response, changes: changes, rollback: changes.isEmpty ? nil : rollback)
    }

    /// Ends a command whose changes the caller tried to make durable: applies them if `durable`,
    /// else puts the volatile state back as it was before the command and answers
    /// CTAP1_ERR_OTHER (the card's state is then exactly as before). A command that goes on once
    /// its first changes are durable (a PIN check) returns its next outcome to persist.
    public mutating func finish(_ outcome: CommandOutcome, durable: Bool) -> FinishedCommand {
        guard !outcome.changes.isEmpty else { return .answer(outcome.response) }
        guard durable else {
            if let rollback = outcome.rollback {
                session = rollback.session
                random = rollback.random
            }
            return .answer([CTAPStatus.other.rawValue])
        }
        commit(outcome.changes)
        guard let check = outcome.continuation else { return .answer(outcome.response) }
        let next = resume(check)
        return next.changes.isEmpty ? .answer(next.response) : .persist(next)
    }

    /// Applies durable changes to the memory. Credential keys imported for signing are dropped
    /// when credentials go, so a deleted credential's key does not outlive it in RAM either.
    mutating func commit(_ changes: [CardMutation]) {
        memory.apply(changes)
        if changes.contains(where: \.removesCredentials) { session.signingKeys.removeAll() }
    }

    private mutating func handle(_ command: CTAPCommand?, body: ArraySlice<UInt8>,
                                 changes: inout [CardMutation]) throws(CTAPStatus) -> CBORValue? {
        guard profile.supportsCTAP2, let command else { throw .invalidCommand }
        switch command {
        case .getInfo:
            try requireEmpty(body)
            return getInfo().encoded()
        case .makeCredential:
            return try makeCredential(MakeCredentialRequest(decoding: body), changes: &changes).encoded()
        case .getAssertion:
            return try getAssertion(GetAssertionRequest(decoding: body), changes: &changes).encoded()
        case .getNextAssertion:
            try requireEmpty(body)
            return try getNextAssertion(changes: &changes).encoded()
        case .clientPIN:
            return try clientPIN(ClientPINRequest(decoding: body), changes: &changes)?.encoded()
        case .reset:
            try requireEmpty(body)
            try reset(changes: &changes)
            return nil
        case .credentialManagement where profile.credentialManagement:
            return try credentialManagement(CredentialManagementRequest(decoding: body), changes: &changes)?.encoded()
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

    // MARK: - What the environment says

    /// Now, as the running command's environment says.
    var now: CardInstant { running?.environment.now ?? session.poweredOnAt }

    /// User presence as the commands test it: an injected decline first, then the person.
    func isUserPresent() -> Bool {
        guard let running else { return true }
        if let faults = running.environment.faults, faults.declinesUserPresence(in: running.command) { return false }
        return running.environment.userPresence()
    }

    /// The person's answer alone (the PIN probe and excluded credentials ask without a fault).
    func personIsPresent() -> Bool {
        running?.environment.userPresence() ?? true
    }

    /// Authenticator-data flags after any injected change.
    func injectedFlags(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags {
        guard let running, let faults = running.environment.faults else { return flags }
        return faults.authenticatorDataFlags(flags, in: running.command)
    }

    // MARK: - Keys and signatures

    /// Most credential keys `signingKey` keeps imported (a card in use signs with a handful).
    static let signingKeyCacheLimit = 64

    /// The OpenSSL key of a credential, for signing. Importing a scalar (public point, OpenSSL
    /// key objects) costs several times the signature itself, so a key imported once stays in
    /// volatile memory until power-off; a cached key is used only if its scalar is the one given.
    mutating func signingKey(id: [UInt8], scalar: [UInt8]) throws(CTAPStatus) -> P256PrivateKey {
        if let cached = session.signingKeys[id], ConstantTime.equals(cached.rawScalar, scalar) { return cached }
        let key = try crypto("importing a credential key") { () throws -> P256PrivateKey in try P256PrivateKey(rawScalar: scalar) }
        if session.signingKeys.count >= Self.signingKeyCacheLimit { session.signingKeys.removeAll(keepingCapacity: true) }
        session.signingKeys[id] = key
        return key
    }

    /// ECDSA-SHA256, with RFC 6979 nonces on a seeded card; then any injected signature fault.
    mutating func sign(_ message: [UInt8], with key: P256PrivateKey) throws(CTAPStatus) -> [UInt8] {
        let deterministic = random.isDeterministic
        let signature = try crypto("signing") { () throws -> [UInt8] in
            deterministic ? try key.deterministicSignature(for: message) : try key.signature(for: message)
        }
        guard let running, let faults = running.environment.faults else { return signature }
        return faults.signature(signature, in: running.command)
    }

    /// Runs a cryptographic operation that cannot fail on valid card data; if it does, the
    /// command answers CTAP1_ERR_OTHER and the outcome says what failed and why.
    mutating func crypto<T>(_ what: String, _ body: () throws -> T) throws(CTAPStatus) -> T {
        do {
            return try body()
        } catch {
            internalFailureReason = "\(what): \(error)"
            throw .other
        }
    }
}
