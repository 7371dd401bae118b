// What a user of the ArculusCard product names: the model's types, and the keys its state
// control takes and returns (CredentialPrivateKey, CredentialPublicKey, P256PrivateKey), so one import is enough.
@_exported import CardCrypto
@_exported import CBOR
@_exported import CTAP2
@_exported import FIDOWire
@_exported import ISO7816

/// An emulated Arculus FIDO2 card: the card model (``CardModel``), the storage its memory lives
/// in, and the test-double controls. It drives the model: it hands it every input with the time
/// and the person's answers, makes the changes the model returns durable before the answer
/// leaves, waits for the time the answer is due (through its ``waiter``), and applies the faults
/// that act at that boundary.
///
/// The in-process API tests start from:
/// ```swift
/// let card = try VirtualCard()                                   // blank FIDO 2.1 card in memory
/// let info = card.send(.getInfo)                                 // typed CTAP2
/// let raw = card.transmit(NFCBinding.selectFIDOApplet)           // APDUs
/// card.powerOff(); card.powerOn()                                // take it off the reader and tap again
/// ```
/// Not thread-safe; use one card from one thread at a time.
public final class VirtualCard {
    /// The card model: authenticator, front and every piece of volatile state.
    public internal(set) var model: CardModel
    /// Where the card's memory is made durable.
    public let storage: CardStorage
    /// The ATR the card presents on a reader.
    public let atr: [UInt8]
    /// Test-double controls: injected faults and the fault log.
    public let control = CardControl()
    /// Asked, in ``PresenceMode/approve`` (the default), whenever a command tests user presence. A
    /// card in the NFC field counts as present, so the default answers yes; tests can decline. The
    /// card asks it between the command's two halves (the model stops at its test of presence and
    /// runs again with the answer), never from inside the model.
    public var userPresence: () -> Bool {
        get { presenceAnswerer ?? { true } }
        set { presenceAnswerer = newValue }
    }
    /// How the person answers tests of user presence: at once (``PresenceMode/approve``, as
    /// ``userPresence`` says, or ``PresenceMode/decline``), or when asked (``PresenceMode/ask``:
    /// ``pendingPresence`` and ``answerPresence(id:approve:)``).
    public var presenceMode: PresenceMode = .approve
    /// Called when the card starts to wait for an answer (``PresenceMode/ask``), on the card's thread.
    public var onPresencePrompt: ((PendingPresence) -> Void)?
    /// The card's clock, read for every input (the machine's monotonic clock unless the card was
    /// made with another); a test can replace it to move time on.
    public var clock: () -> CardInstant
    /// How the card waits for the time an answer is due (simulated work, a delay fault): the
    /// machine's clock, cut short by ``SystemCardWaiter/interrupt()``, unless the card is given
    /// another (``ManualCardClock`` for tests, a reader bridge's for a served card).
    public var waiter: any CardWaiter = SystemCardWaiter()
    /// A replaced ``userPresence``; nil: yes at once, with no second run of the command.
    private var presenceAnswerer: (() -> Bool)?
    /// The number of the latest presence prompt.
    private var promptID = 0
    /// Every write that failed, oldest first (the last 100): which write and why; also each
    /// compaction that failed after its change was stored (``CardWriteFailure/changeKept``).
    public private(set) var writeFailures: [CardWriteFailure] = []
    /// Called each time a write or a compaction fails (`arculus-card serve` and `image` print it).
    public var onWriteFailure: ((CardWriteFailure) -> Void)?

    /// A card over any storage; `profile` is used when the storage is blank. `entropy: .seeded(…)`
    /// makes a deterministic card (reproducible responses, for tests and transcripts). The card is
    /// powered at `clock`'s now, and reads `clock` for every input after.
    public init(profile: CardProfile, storage: CardStorage, frontOptions: CardFront.Options = .init(),
                entropy: CardEntropy = .system, clock: @escaping () -> CardInstant = CardInstant.monotonicNow) throws {
        let stored = try storage.load()
        if let stored, stored.profile.name != profile.name {
            throw CardImageError(path: (storage as? CardImageFile)?.path ?? "(in memory)",
                                 reason: .profileMismatch(image: stored.profile.name, requested: profile.name))
        }
        let effective = stored?.profile ?? profile
        let authenticator = try Authenticator(profile: effective, state: stored,
                                              attestation: try AttestationIdentity.emulator(for: effective, entropy: entropy),
                                              enterpriseAttestation: effective.enterpriseAttestation
                                                  ? try AttestationIdentity.enterprise(for: effective, entropy: entropy) : nil,
                                              entropy: entropy, now: clock())
        if authenticator.isBlank { try storage.save(authenticator.state) }
        self.storage = storage
        self.clock = clock
        atr = try effective.atrBytes
        model = CardModel(authenticator: authenticator, frontOptions: frontOptions)
    }

    /// A blank card in memory.
    public convenience init(profile: CardProfile = .default, frontOptions: CardFront.Options = .init(),
                            entropy: CardEntropy = .system, clock: @escaping () -> CardInstant = CardInstant.monotonicNow) throws {
        try self.init(profile: profile, storage: InMemoryStorage(), frontOptions: frontOptions, entropy: entropy, clock: clock)
    }

    /// The card whose image is at `path`, created from `profile` (default: the FIDO 2.1 card) if
    /// the file does not exist or is empty. Passing a profile for an existing image checks that it
    /// matches; passing nil takes the image's own profile. The image stays locked while the card
    /// exists (``CardImageFile`` says what is refused: a file that is not a card image, one this
    /// process cannot write, one in use).
    public convenience init(imageAt path: String, profile: CardProfile? = nil, frontOptions: CardFront.Options = .init(),
                            entropy: CardEntropy = .system, clock: @escaping () -> CardInstant = CardInstant.monotonicNow) throws {
        let storage = try CardImageFile(path: path)
        let stored = try storage.load()
        try self.init(profile: profile ?? stored?.profile ?? .default, storage: storage, frontOptions: frontOptions,
                      entropy: entropy, clock: clock)
    }

    // MARK: - Reading the card

    /// The card model this card presents.
    public var profile: CardProfile { model.authenticator.profile }
    /// The CTAP2 authenticator (state inspection).
    public var authenticator: Authenticator { model.authenticator }
    /// The ISO 7816 / NFC front.
    public var front: CardFront { model.front }

    /// The discoverable credentials on the card, oldest first.
    public var credentials: [ResidentCredential] { model.authenticator.state.residentCredentials }

    /// Whether a PIN is set, and how many attempts remain.
    public var pinState: PINState {
        let memory = model.authenticator.memory
        return PINState(isSet: memory.state.isPINSet, retries: memory.state.pinRetries,
                        signatureCounter: memory.signatureCounter)
    }

    // MARK: - Power

    /// The card enters the field (a command sent to a card that is off powers it too).
    public func powerOn() {
        model.powerOn(at: clock())
    }

    /// The card leaves the field: everything volatile is lost.
    public func powerOff() {
        model.powerOff(at: clock())
    }

    /// Puts the card on `clock`: it reads the time there and waits there (``ManualCardClock``).
    public func use(_ clock: ManualCardClock) {
        self.clock = clock.read
        waiter = clock
    }

    /// Off and on again, as when a card is taken away and tapped.
    public func powerCycle() {
        powerOff()
        powerOn()
    }

    // MARK: - Commands

    /// One command APDU in, the response APDU (data + SW1 SW2) out; empty when the card left the
    /// field instead of answering (see ``CardRemovedError``).
    public func transmit(_ apdu: [UInt8]) -> [UInt8] {
        if model.isInField, let answer = control.answerInstead(ofAPDU: apdu) { return answer }
        let environment = environment()
        return perform(model.receive(apdu, in: environment), from: environment.now, leavingFieldAllowed: true)
    }

    /// One raw CTAP2 request (command byte + CBOR) straight to the authenticator, bypassing the
    /// ISO 7816 front; returns status byte + CBOR.
    public func ctap2(_ request: [UInt8]) -> [UInt8] {
        let environment = environment()
        return perform(model.receiveCTAP(request, in: environment), from: environment.now, leavingFieldAllowed: false)
    }

    /// U2F REGISTER straight to the authenticator, bypassing the front.
    public func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FResult {
        let environment = environment()
        return Self.u2fResult(perform(model.receiveU2F(.u2fRegister(challenge: challenge, application: application),
                                                       in: environment), from: environment.now, leavingFieldAllowed: false))
    }

    /// U2F AUTHENTICATE straight to the authenticator, bypassing the front.
    public func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FResult {
        let environment = environment()
        return Self.u2fResult(perform(model.receiveU2F(.u2fAuthenticate(control: control, challenge: challenge,
                                                                        application: application, keyHandle: keyHandle),
                                                       in: environment), from: environment.now, leavingFieldAllowed: false))
    }

    private static func u2fResult(_ apdu: [UInt8]) -> U2FResult {
        guard let response = ResponseAPDU(parsing: apdu) else { return .wrongData }
        switch response.statusWord {
        case .success: return .success(response.data)
        case .conditionsNotSatisfied: return .conditionsNotSatisfied
        default: return .wrongData
        }
    }

    /// A typed CTAP2 request.
    public func send(_ command: CTAPCommand, _ parameters: CBORMap? = nil) -> CTAPResponse {
        var request: [UInt8] = [command.rawValue]
        if let parameters { request += CBOREncoder.encode(.map(parameters)) }
        return CTAPResponse(bytes: ctap2(request))
    }

    /// What the world tells the model for the next input: the time, the person's answer if it is
    /// known before the command, the faults that act inside a command.
    private func environment() -> CommandEnvironment {
        CommandEnvironment(now: clock(), presence: presenceKnownBefore, faults: control.armed)
    }

    /// The person's answer as far as it is known before a command: yes or no at once, unless
    /// somebody is to be asked (a replaced ``userPresence``, or ``PresenceMode/ask``).
    private var presenceKnownBefore: UserPresence {
        switch presenceMode {
        case .approve: presenceAnswerer == nil ? .present : .undecided
        case .decline: .declined
        case .ask: .undecided
        }
    }

    /// Carries out the model's actions until it has an answer: the storage boundary, where the
    /// faults' acts are logged, writes made, the answer's time waited for (counted from `start`,
    /// when the input arrived) and the boundary's faults act.
    private func perform(_ first: CardAction, from start: CardInstant, leavingFieldAllowed: Bool) -> [UInt8] {
        var action = first
        var start = start
        while true {
            switch action {
            case .silent:
                return []
            case .awaitPresence(_, let deadline, let mayDefer):
                action = askPerson(until: deadline, mayDefer: mayDefer, start: &start)
            case .persist(let changes, let command, let faultActs):
                control.record(faultActs)
                let failure = write(changes, for: command)
                action = model.finishWrite(succeeded: failure == nil)
            case .respond(let response, let ran, let work, let faultActs):
                control.record(faultActs)
                var due = work
                if let ran, let extra = control.delay(after: ran) { due += extra }
                if due > .zero { _ = waiter.wait(until: start.advanced(by: due), for: .work, clock: clock, unless: { false }) }
                if leavingFieldAllowed, let ran, let away = control.leavesField(after: ran) {
                    model.leaveField(at: clock())
                    control.onLeaveField?(away)
                    return []
                }
                return response
            }
        }
    }

    /// A command stopped at its test of user presence: the person's answer — at once, or, in
    /// ``PresenceMode/ask``, once given (``answerPresence(id:approve:)``) while the card waits
    /// through its ``waiter`` until the presence time-out (a host that polls is answered `9100`
    /// UPNEEDED instead, and the card does not wait). `start` moves to the end of a wait: the
    /// command's time counts from the answer.
    private func askPerson(until deadline: CardInstant, mayDefer: Bool, start: inout CardInstant) -> CardAction {
        switch presenceMode {
        case .approve: model.answerPresence(approved: userPresence())
        case .decline: model.answerPresence(approved: false)
        case .ask:
            promptID += 1
            if let pending = pendingPresence { onPresencePrompt?(pending) }
            guard !mayDefer else { break }
            let outcome = waiter.wait(until: deadline, for: .person, clock: clock, unless: { model.presenceWait?.answer != nil })
            start = clock()
            return model.continueAfterPresence(in: environment(), givingUp: outcome == .interrupted)
        }
        return model.continueAfterPresence(in: environment())
    }

    // MARK: - The person

    /// The test of user presence the card waits to have answered (``PresenceMode/ask``), if any:
    /// none once answered, and none past the presence time-out (the command answers
    /// CTAP2_ERR_USER_ACTION_TIMEOUT to the host's next poll).
    public var pendingPresence: PendingPresence? {
        guard let wait = model.presenceWait, wait.answer == nil else { return nil }
        let now = clock()
        guard now < wait.deadline else { return nil }
        return PendingPresence(id: promptID, prompt: wait.prompt, waiting: wait.since.duration(to: max(wait.since, now)))
    }

    /// Answers the pending prompt `id`: the command runs with the answer (at once for a card
    /// that waits, at the host's next poll for one that answers `9100`). Call it on the card's
    /// thread (a served card's control requests run there, also while the card waits).
    public func answerPresence(id: Int, approve: Bool) throws(PresenceError) {
        guard let pending = pendingPresence, pending.id == id else { throw .noSuchPrompt(id) }
        model.answerPresence(approved: approve)
    }

    /// How long the card waits for the person's answer before the command fails with
    /// CTAP2_ERR_USER_ACTION_TIMEOUT (U2F: `6985`); 30 s.
    public var presenceTimeout: Duration {
        get { model.presenceTimeout }
        set { model.presenceTimeout = newValue }
    }

    /// Makes `changes` durable; the failure, if any (also logged and reported). A compaction
    /// that failed after the changes were made durable is logged and reported too, but the
    /// changes stand (nil).
    private func write(_ changes: [CardMutation], for command: CardCommand?) -> CardWriteFailure? {
        let failure: CardWriteFailure
        if let command, control.failsWrite(in: command) {
            failure = CardWriteFailure(command: command, changes: changes, reason: "an injected torn write")
        } else {
            do {
                // The state before the changes: the model applies them once they are durable.
                try storage.commit(changes, onto: model.authenticator.state)
                if let upkeep = storage.takeUpkeepFailure() {
                    report(CardWriteFailure(command: command, changes: changes, reason: "\(upkeep)", changeKept: true))
                }
                return nil
            } catch {
                failure = CardWriteFailure(command: command, changes: changes, reason: "\(error)")
            }
        }
        report(failure)
        return failure
    }

    private func report(_ failure: CardWriteFailure) {
        if writeFailures.count >= 100 { writeFailures.removeFirst() }
        writeFailures.append(failure)
        onWriteFailure?(failure)
    }

    /// Makes a state control's changes durable and applies them.
    func commitStateChanges(_ changes: [CardMutation]) throws(StateControlError) {
        guard !changes.isEmpty else { return }
        if let failure = write(changes, for: nil) { throw .writeFailed(failure.description) }
        model.commit(changes)
    }
}

/// What a test can read of the card's PIN state.
public struct PINState: Equatable, Sendable {
    public var isSet: Bool
    public var retries: Int
    public var signatureCounter: UInt32
}

/// A CTAP2 response split into status and decoded body.
public struct CTAPResponse: Sendable {
    /// The raw response (status byte + CBOR).
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The status, or nil for an empty response.
    public var status: CTAPStatus? { bytes.first.map(CTAPStatus.init(rawValue:)) }

    /// The CBOR body, nil when empty or not CBOR.
    public var body: CBORValue? {
        guard bytes.count > 1 else { return nil }
        return try? CBORDecoder.decode(Array(bytes.dropFirst()))
    }

    /// The body's map, or an empty map.
    public var map: CBORMap { body?.mapValue ?? CBORMap() }
}
