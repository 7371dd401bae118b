import ArculusCard

// The card as the harnesses drive it: the card model itself (`CardModel`, a value) with what its
// storage would hold beside it (a `CardState` value), so a fuzz input costs a copy of a baseline
// instead of a card made from scratch, and no storage, clock, thread or sleep is involved.

/// One fuzzed card: the model, its durable memory, its clock and the person holding it.
///
/// Every change the model asks to make durable is applied to ``durable`` (or, when the input
/// made that write fail, not); after every answer that involved a write, and at the end of the
/// input (``checkMemory()``), the model's memory must be exactly ``durable``: nothing changes
/// without a write, and a failed write changes nothing.
struct FuzzCard {
    private(set) var model: CardModel
    /// What the card's storage holds.
    private(set) var durable: CardState
    /// The card's clock; each APDU or request moves it on by ``step``.
    private(set) var now: CardInstant
    var step: Duration = .seconds(1)
    /// Whether the person holding the card consents when it tests user presence.
    var userConsents = true
    /// The next write fails (a full disk, a torn write), once.
    var failNextWrite = false
    /// Writes the card asked for, and those that failed.
    private(set) var writes = 0
    private(set) var failedWrites = 0

    init(model: CardModel, durable: CardState, now: CardInstant = .origin) {
        self.model = model
        self.durable = durable
        self.now = now
    }

    /// The card as a fresh baseline: `authenticator`'s memory, powered at the origin.
    init(authenticator: Authenticator, frontOptions: CardFront.Options = .init()) {
        self.init(model: CardModel(authenticator: authenticator, frontOptions: frontOptions),
                  durable: authenticator.state)
    }

    var state: CardState { model.authenticator.state }

    /// The model's memory is what was made durable.
    func checkMemory() {
        fuzzCheck(model.authenticator.state == durable, "the card's memory is not what was made durable")
    }

    /// The same card behind a front with other options (volatile front state starts afresh).
    func withFront(_ options: CardFront.Options, timing: TimingProfile) -> FuzzCard {
        var card = FuzzCard(model: CardModel(authenticator: model.authenticator, frontOptions: options),
                            durable: durable, now: now)
        card.model.timing = timing
        return card
    }

    // MARK: - Inputs

    /// Off the reader and tapped again.
    mutating func powerCycle() {
        powerOff()
        powerOn()
    }

    mutating func powerOff() {
        fuzzTrace("! power-off")
        now = now.advanced(by: step)
        model.powerOff(at: now)
    }

    mutating func powerOn() {
        fuzzTrace("! power-on")
        now = now.advanced(by: step)
        model.powerOn(at: now)
    }

    mutating func advance(by duration: Duration) {
        now = now.advanced(by: duration)
    }

    /// One command APDU in, the response APDU out.
    mutating func transmit(_ apdu: [UInt8]) -> Exchange {
        now = now.advanced(by: step)
        let exchange = perform(model.receive(apdu, in: environment))
        fuzzTrace("> \(fuzzHex(apdu))\n< \(fuzzHex(exchange.response))\(exchange.failedWrite.map { "  (write failed: \($0))" } ?? "")")
        return exchange
    }

    /// One CTAP2 request straight to the authenticator (no front): status byte + CBOR out.
    mutating func ctap(_ request: [UInt8]) -> Exchange {
        now = now.advanced(by: step)
        let exchange = perform(model.receiveCTAP(request, in: environment))
        fuzzTrace("> \(fuzzHex(request))\n< \(fuzzHex(exchange.response))\(exchange.failedWrite.map { "  (write failed: \($0))" } ?? "")")
        return exchange
    }

    /// What one input to the card gave.
    struct Exchange {
        var response: [UInt8]
        /// The command whose write failed, if one did.
        var failedWrite: CardCommand?
    }

    private var environment: CommandEnvironment {
        CommandEnvironment(now: now, presence: userConsents ? .present : .declined)
    }

    /// Carries out the model's actions until it answers: the storage boundary, in memory.
    private mutating func perform(_ first: CardAction) -> Exchange {
        var action = first
        var failed: CardCommand?
        var wrote = false
        while true {
            switch action {
            case .silent:
                fuzzCheck(false, "the card answered nothing, though it never left the field")
                return Exchange(response: [], failedWrite: failed)
            case .persist(let changes, let command, _):
                fuzzCheck(!changes.isEmpty, "the card asked to write no changes for \(command)")
                writes += 1
                wrote = true
                let succeeds = !failNextWrite
                failNextWrite = false
                if succeeds {
                    for change in changes { durable.apply(change) }
                } else {
                    failedWrites += 1
                    failed = command
                }
                action = model.finishWrite(succeeded: succeeds)
            case .awaitPresence(let prompt, _, _):
                fuzzCheck(false, "the card asked for presence (\(prompt.command)), though the answer came with the command")
                return Exchange(response: [], failedWrite: failed)
            case .respond(let response, _, _, _):
                if wrote { checkMemory() }
                return Exchange(response: response, failedWrite: failed)
            }
        }
    }
}
