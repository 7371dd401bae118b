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
///
/// A profile without `FIDO_2_1` makes a CTAP 2.0 authenticator: one PIN protocol, a pinToken
/// valid until power-off with no permissions or RP binding, CTAP 2.0's option errors, one
/// hmac-secret CredRandom per credential and CTAP 2.0's getInfo.
public struct Authenticator {
    /// The profile (the kind of card) this authenticator presents.
    public let profile: CardProfile
    /// The attestation key and certificate chain used for `packed` attestation and U2F.
    public let attestation: AttestationIdentity
    /// The enterprise attestation identity, on a profile with enterprise attestation.
    public let enterpriseAttestation: AttestationIdentity?
    /// Where the card's random values come from.
    public let entropy: CardEntropy
    /// The card's non-volatile memory, as last made durable.
    public internal(set) var memory: CardMemory
    /// What the card forgets when it leaves the field: from ``powerOff(at:)`` to the next
    /// ``powerOn(at:)``, ``AuthenticatorSession/unpowered(at:)`` (nothing initialised, nothing held).
    /// It alone says whether the card is powered (``isPowered``), for the authenticator and for
    /// the card model around it.
    public internal(set) var session: AuthenticatorSession
    var random: CardRandom
    /// The command being processed, what the world says meanwhile and what it has noted so far:
    /// everything of one command in one value, nil between commands (``RunningCommand``).
    var running: RunningCommand?
    /// getInfo's last answer and what it was made from (see ``encodedInfo()``).
    var infoCache: (inputs: InfoInputs, body: [UInt8])?

    /// An authenticator over the stored memory `state`, or a blank card made from `profile` when
    /// `state` is nil (``isBlank``: the caller stores ``memory`` before using the card). The card
    /// is powered at `now`.
    public init(profile: CardProfile, state: CardState?, attestation: AttestationIdentity,
                enterpriseAttestation: AttestationIdentity? = nil, entropy: CardEntropy = .system,
                now: CardInstant) throws(ProfileError) {
        try profile.validate()
        self.profile = profile
        self.attestation = attestation
        self.enterpriseAttestation = enterpriseAttestation
        self.entropy = entropy
        judgesAhead = profile.behaviour.judgesAhead
        random = CardRandom(entropy)
        if let state {
            memory = CardMemory(state: state)
            isBlank = false
        } else {
            memory = CardMemory(state: CardState(profile: profile, masterSecret: random.bytes(32)))
            isBlank = true
        }
        session = AuthenticatorSession(at: now, protocols: profile.pinUvAuthProtocols, random: &random)
    }

    /// Whether this card was made blank by ``init`` (its memory is not stored anywhere yet).
    public let isBlank: Bool
    /// Whether the profile judges requests before their usual reading (``CardBehaviour/judgesAhead``),
    /// known once: asking the behaviour copied all of it for every command.
    private let judgesAhead: Bool

    /// The card's non-volatile state.
    public var state: CardState { memory.state }

    // MARK: - Power

    /// The card entered the field (or its field was reset): each protocol initialised afresh.
    public mutating func powerOn(at now: CardInstant) {
        session = AuthenticatorSession(at: now, protocols: profile.pinUvAuthProtocols, random: &random)
    }

    /// The card left the field: tokens, key-agreement keys, the consecutive-failure count and
    /// pending assertion/enumeration/large-blob state are gone. Nothing is drawn: the next
    /// power-on initialises the protocols.
    public mutating func powerOff(at now: CardInstant) {
        session = .unpowered(at: now)
    }

    /// False from ``powerOff(at:)`` to the next ``powerOn(at:)``. A command can reach a card only
    /// through a field that powers it, so whoever drives the authenticator powers it on before
    /// handing it a command: the card model does, for a command that arrives at a card that is off
    /// (a vpcd client that sends an APDU without powering the card first), which is then answered
    /// as by a card just tapped.
    public var isPowered: Bool { session.isPowered }

    /// Why a command cannot run now (see ``isPowered``).
    static let unpoweredCommand = "a command reached the authenticator while it was off: power it on first"

    // MARK: - Commands

    /// Processes one CTAP2 request (command byte + CBOR parameters). Never traps on bad input; the
    /// authenticator must be powered (``isPowered``).
    public mutating func process(_ request: [UInt8], in environment: CommandEnvironment) -> CommandOutcome {
        precondition(isPowered, Self.unpoweredCommand)
        guard let commandByte = request.first else { return CommandOutcome(response: [CTAPStatus.invalidLength.rawValue], changes: []) }
        let rollback = CommandOutcome.Rollback(session: session, random: random)
        let command = CTAPCommand(rawValue: commandByte)
        session.forgetContinuations(before: command)
        if !environment.faults.isEmpty {
            var faults = environment.faults
            if let injected = faults.ctapStatus(insteadOf: .ctap(commandByte)) {
                return CommandOutcome(response: [injected], changes: [], ran: false, faultActs: faults.takeActs())
            }
        }
        running = RunningCommand(command: .ctap(commandByte), environment: environment)
        defer { running = nil }
        let outcome = run(command, body: request.dropFirst(), in: environment, rollback: rollback)
        guard let prompt = running?.presenceAsked else { return outcome }
        // Stopped at the test of user presence: nothing of the command is kept (the volatile
        // state and the random stream as before it), so that running it again with the answer
        // gives exactly what it would have given with the answer at once.
        session = rollback.session
        random = rollback.random
        return CommandOutcome(response: [], changes: [], awaitsPresence: prompt)
    }

    /// The running command's work, once `environment` is in ``running``; its outcome carries what
    /// the armed faults did (``takeFaultActs()``).
    private mutating func run(_ command: CTAPCommand?, body: ArraySlice<UInt8>, in environment: CommandEnvironment,
                              rollback: CommandOutcome.Rollback) -> CommandOutcome {
        var changes: [CardMutation] = []
        do {
            let body = try handle(command, body: body, changes: &changes)
            if let check = running?.suspendedPINCheck {
                running?.suspendedPINCheck = nil
                var resumed = environment
                // The second half of a PIN check has no fault point (no presence test, no
                // signature), so it runs with none armed and has no act to report.
                resumed.faults = ArmedFaults()
                return CommandOutcome(response: [], changes: changes, faultActs: takeFaultActs(), rollback: rollback,
                                      continuation: check.resuming(in: resumed))
            }
            var response = CBORWriter(reservingCapacity: 1 + body.sizeHint)
            response.appendEncoded(byte: CTAPStatus.ok.rawValue)
            body.write(to: &response)
            return CommandOutcome(response: response.bytes, changes: changes, faultActs: takeFaultActs(),
                                  signatureCounter: running?.counterInUse,
                                  rollback: changes.isEmpty && running?.counterInUse == nil ? nil : rollback)
        } catch {
            running?.suspendedPINCheck = nil
            // Changes made before the failure stay: a wrong PIN's retry decrement is one.
            return CommandOutcome(response: [error.rawValue], changes: changes, internalFailure: running?.internalFailure,
                                  faultActs: takeFaultActs(), rollback: changes.isEmpty ? nil : rollback)
        }
    }

    /// Ends a command whose changes the caller tried to make durable: applies them if `durable`,
    /// else puts the volatile state back as it was before the command and answers
    /// CTAP1_ERR_OTHER (the card's state is then exactly as before). A command that goes on once
    /// its first changes are durable (a PIN check) returns its next outcome to persist.
    public mutating func finish(_ outcome: CommandOutcome, durable: Bool) -> FinishedCommand {
        guard !outcome.changes.isEmpty else {
            if let counter = outcome.signatureCounter { memory.advanceSignatureCounter(to: counter) }
            return .answer(outcome.response)
        }
        guard durable else {
            if let rollback = outcome.rollback {
                session = rollback.session
                random = rollback.random
            }
            return .answer([CTAPStatus.other.rawValue])
        }
        commit(outcome.changes)
        if let counter = outcome.signatureCounter { memory.advanceSignatureCounter(to: counter) }
        guard let check = outcome.continuation else { return .answer(outcome.response) }
        let next = resume(check)
        return next.changes.isEmpty ? .answer(next.response) : .persist(next)
    }

    /// Applies durable changes to the memory. Credential keys made for signing and unwrapped IDs
    /// are dropped when credentials go, so a deleted credential does not outlive it in RAM either.
    mutating func commit(_ changes: [CardMutation]) {
        memory.apply(changes)
        if changes.contains(where: \.removesCredentials) {
            session.signingKeys.removeAll()
            session.unwrappedCredentials.removeAll()
        }
    }

    private mutating func handle(_ command: CTAPCommand?, body sent: ArraySlice<UInt8>,
                                 changes: inout [CardMutation]) throws(CTAPStatus) -> ResponseBody {
        guard profile.supportsCTAP2, let command else { throw .invalidCommand }
        // The profile's judging order first (Judging/): the body as the usual reading gets it.
        let body = judgesAhead ? try judged(command, body: sent) : sent
        switch command {
        case .getInfo:
            try requireEmpty(body)
            return .encoded(encodedInfo())
        case .makeCredential:
            return .message(try makeCredential(MakeCredentialRequest(decoding: body, ctap21: profile.supportsCTAP21),
                                               changes: &changes))
        case .getAssertion:
            return .assertion(try getAssertion(GetAssertionRequest(decoding: body), changes: &changes))
        case .getNextAssertion:
            try requireEmpty(body)
            return .assertion(try getNextAssertion(changes: &changes))
        case .clientPIN:
            return .message(try clientPIN(ClientPINRequest(decoding: body), changes: &changes))
        case .reset:
            try requireEmpty(body)
            try reset(changes: &changes)
            return .empty
        case .credentialManagement where profile.credentialManagement:
            return .message(try credentialManagement(CredentialManagementRequest(decoding: body), preview: false,
                                                     changes: &changes))
        case .credentialManagementPreview where profile.credentialManagementPreview:
            return .message(try credentialManagement(CredentialManagementRequest(decoding: body), preview: true,
                                                     changes: &changes))
        case .selection where profile.supportsCTAP21:
            try requireEmpty(body)
            guard try isUserPresent() else { throw .operationDenied }
            return .empty
        case .config where profile.authenticatorConfig:
            try authenticatorConfig(ConfigRequest(decoding: body), changes: &changes)
            return .empty
        case .largeBlobs where profile.largeBlobs:
            return .message(try largeBlobs(LargeBlobsRequest(decoding: body), changes: &changes))
        default:
            throw .invalidCommand
        }
    }

    /// A command that takes no parameters: bytes after it are INVALID_LENGTH, or ignored on a
    /// card with behaviour.parametersToNone `ignore`.
    private func requireEmpty(_ body: ArraySlice<UInt8>) throws(CTAPStatus) {
        guard body.isEmpty || profile.behaviour.parametersToNone == .ignore else { throw .invalidLength }
    }

    // MARK: - The signature counter

    /// The next signature counter value, handed out by the running command. It is made durable
    /// ahead by the profile's reservation: only when the value passes what the image holds does
    /// the command add a change (a new ceiling, `reservation` ahead), so most assertions write
    /// nothing and a crash loses at most `reservation` values (the counter then jumps, never
    /// repeats). How the counter moves is the profile's (behaviour.signatureCounter): up a fixed step, up a
    /// random step, or not at all (always 0).
    mutating func takeSignatureCounter(changes: inout [CardMutation]) -> UInt32 {
        // The behaviour's members read in place: a copy of the whole behaviour per signature shows.
        let step: UInt32
        let largestStep = profile.behaviour.signatureCounterStep
        switch profile.behaviour.signatureCounter {
        case .zero: return 0
        case .global: step = UInt32(largestStep)
        case .randomStep: step = 1 + UInt32(random.bytes(2).reduce(0) { $0 << 8 | Int($1) } % largestStep)
        }
        // Past UInt32.max the counter wraps to 0, as with a step of 1.
        let (sum, overflow) = (running?.counterInUse ?? memory.signatureCounter).addingReportingOverflow(step)
        let next = overflow ? 0 : sum
        running?.counterInUse = next
        if next > memory.state.signatureCounter || next == 0 {
            let headroom = UInt32(clamping: max(0, profile.signatureCounterReservation - 1))
            let ceiling = next > UInt32.max - headroom ? UInt32.max : next + headroom
            changes.append(.setSignatureCounter(ceiling))
        }
        return next
    }

    // MARK: - Keys and signatures

    /// The credential `id` names for `rpIdHash` (``CardMemory/credential(id:rpIdHash:)``). An ID
    /// unwrapped once (MAC checked, key decrypted) is kept until power-off, or until credentials
    /// are deleted: a card in use asserts with the same few credentials again and again.
    mutating func credential(id: [UInt8], rpIdHash: [UInt8]) -> CredentialWrapper.Contents? {
        if let cached = session.unwrappedCredentials[ByteKey(id)], cached.rpIdHash == rpIdHash {
            // A deleted discoverable credential is gone even if the cache were not cleared.
            return cached.contents.discoverable && memory.residentCredential(id: id) == nil ? nil : cached.contents
        }
        guard let contents = memory.credential(id: id, rpIdHash: rpIdHash) else { return nil }
        if session.unwrappedCredentials.count >= Self.credentialCacheLimit {
            session.unwrappedCredentials.removeAll(keepingCapacity: true)
        }
        session.unwrappedCredentials[ByteKey(id)] = UnwrappedCredential(rpIdHash: rpIdHash, contents: contents)
        return contents
    }

    /// The SHA-256 of an RP ID's UTF-8. A card in use asserts for one RP again and again, so the
    /// last one is kept until power-off (matched by its bytes, as RP IDs always are).
    mutating func rpIdHash(_ rpId: String) -> [UInt8] {
        if let last = session.lastRPIDHash, ByteKey.sameUTF8(last.rpId, rpId) { return last.hash }
        let hash = SHA256.hash(Array(rpId.utf8))
        session.lastRPIDHash = (rpId, hash)
        return hash
    }

    /// Most credential keys `signingKey` keeps ready (a card in use signs with a handful).
    static let credentialCacheLimit = 64

    /// A credential's key, for signing. Making one (importing a scalar, deriving an RSA key from
    /// its seed) costs more than the signature, so a key made once stays in volatile memory until
    /// power-off; a cached key is used only if its material is the one given.
    mutating func signingKey(id: [UInt8], material: CredentialKeyMaterial) throws(CTAPStatus) -> CredentialPrivateKey {
        if let cached = session.signingKeys[ByteKey(id)], cached.material.kind == material.kind,
           cached.material.algorithm == material.algorithm,
           ConstantTime.equals(cached.material.bytes, material.bytes) {
            return cached.key
        }
        let key = try crypto("making a \(material.algorithm.name) credential key") { () throws -> CredentialPrivateKey in
            try material.makeKey()
        }
        if session.signingKeys.count >= Self.credentialCacheLimit { session.signingKeys.removeAll(keepingCapacity: true) }
        session.signingKeys[ByteKey(id)] = (material, key)
        return key
    }

    /// A credential key's signature: RFC 6979 nonces (and a salt from the card's stream for PS256)
    /// on a seeded card; then any injected signature fault.
    mutating func sign(_ message: [UInt8], with key: CredentialPrivateKey) throws(CTAPStatus) -> [UInt8] {
        var stream = random
        let deterministic = stream.isDeterministic
        let signature = try crypto("signing with a \(key.algorithm.name) credential key") { () throws -> [UInt8] in
            deterministic ? try key.deterministicSignature(for: message, randomBytes: { stream.bytes($0) })
                : try key.signature(for: message)
        }
        random = stream
        return injectedSignature(signature)
    }

    /// The attestation key's (P-256) signature, RFC 6979 on a seeded card.
    mutating func sign(_ message: [UInt8], with key: P256PrivateKey) throws(CTAPStatus) -> [UInt8] {
        let deterministic = random.isDeterministic
        let signature = try crypto("signing with the attestation key") { () throws -> [UInt8] in
            deterministic ? try key.deterministicSignature(for: message) : try key.signature(for: message)
        }
        return injectedSignature(signature)
    }

    /// Runs a cryptographic operation that cannot fail on valid card data; if it does, the
    /// command answers CTAP1_ERR_OTHER and the outcome says what failed and why. `what` is built
    /// only then: formatting it for every signature cost a tenth of getAssertion's own work.
    mutating func crypto<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) throws(CTAPStatus) -> T {
        do {
            return try body()
        } catch {
            running?.internalFailure = "\(what()): \(error)"
            throw .other
        }
    }
}
