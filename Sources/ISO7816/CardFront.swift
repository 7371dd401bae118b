import FIDOWire

/// The card front: what a reader talks to over ISO/IEC 14443-4 (NFC), i.e. ISO/IEC 7816-4
/// APDUs carrying the FIDO NFC binding (CTAP 2.1 §11.3, FIDO U2F NFC protocol).
///
/// It selects the FIDO applet, assembles chained commands, cuts long responses into `61xx`
/// pieces for GET RESPONSE, runs the NFCCTAP_MSG / NFCCTAP_GETRESPONSE exchange and checks
/// U2F's APDU framing, then hands each whole command to the card behind it: ``receive(_:)`` answers what the front
/// handles itself or returns the ``Command``, and ``complete(_:)`` frames the card's result.
///
/// Status word choices (a malformed or unexpected APDU never stops the front; it answers
/// the word below and the next APDU is handled normally). These are the defaults; a profile's
/// switches (``Behaviour``) choose others where ISO 7816 leaves room:
///
/// | condition | answer |
/// | --- | --- |
/// | bytes that are not a well-formed APDU (length fields disagree) | `6700` |
/// | CLA other than `00`, `80` (each with or without the chaining bit `10`) | `6E00` |
/// | INS unknown in that class, or for a protocol the applet does not offer | `6D00` |
/// | a FIDO command before the FIDO applet was selected | `6985` |
/// | P1/P2 not allowed for the instruction | `6A86` |
/// | data field of the wrong length for the instruction | `6700` |
/// | SELECT of any AID but `A0000006472F0001` (prefixes included) | `6A82` |
/// | a different command while a command chain is open | `6883` |
/// | GET RESPONSE / NFCCTAP_GETRESPONSE with nothing pending | `6985` |
/// | an NFCCTAP_MSG (chained or not) longer than the applet's maxMsgSize | `39` + `9000` (chained: after the last piece, or `chainOverflow`'s word to the piece that overflows) |
///
/// `6985` for "not selected" follows ISO 7816-4's meaning "conditions of use not satisfied":
/// the command exists, but the state of the card (no application selected) does not allow
/// it. `6D00` is kept for instructions that do not exist at all, so a client can tell "select
/// first" from "not supported".
///
/// A value: all state here is volatile (RAM of the card), and ``powerCycle()`` clears it.
public struct CardFront: Sendable {
    /// Largest assembled data buffered for a chained command other than NFCCTAP_MSG, unless
    /// the applet's maxMsgSize is larger.
    static let minimumChainLimit = 7609

    /// What the front knows of the card behind it.
    /// What the card behind offers; the card changes it when a setting does (alwaysUv turns U2F off).
    public var configuration: Configuration
    /// Everything the front remembers between APDUs.
    public private(set) var state = State()

    /// A front for the card `configuration` describes, powered and with nothing selected.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The card left the field (or entered it): nothing selected, no chain, nothing pending.
    public mutating func powerCycle() {
        state = State()
    }

    /// Whether the FIDO applet is currently selected.
    public var isAppletSelected: Bool { state.isSelected }

    /// Whether a CTAP request answered `9100` waits for NFCCTAP_GETRESPONSE: any other command,
    /// a cancel or a power cycle drops it.
    public var holdsDeferredRequest: Bool { state.pendingCTAP != nil }

    /// Whether the command ``receive(_:)`` handed out last, awaiting ``complete(_:)``, arrived
    /// as a command chain (ISO/IEC 7816-4 §5.3.3) rather than in one APDU.
    public var awaitedCommandWasChained: Bool { state.awaiting?.chained ?? false }

    /// The applet deselects itself (a card that needs a SELECT after authenticatorReset): every
    /// FIDO command answers `word` until the next SELECT.
    public mutating func deselect(answering word: StatusWord) {
        state.isSelected = false
        state.deselectedAnswer = word
    }

    private var behaviour: Behaviour { configuration.behaviour }

    // MARK: - Receiving an APDU

    /// What the front made of one command APDU.
    public enum Step: Sendable, Equatable {
        /// The front answers by itself (malformed APDU, chaining, GET RESPONSE, errors, …).
        case answer(ResponseAPDU)
        /// A whole command for the card: call ``complete(_:)`` with its result.
        case command(Command)
    }

    /// Handles one command APDU: either the answer, or the whole command the card must run.
    public mutating func receive(_ bytes: [UInt8]) -> Step {
        precondition(state.awaiting == nil, "CardFront.receive while a command awaits complete(_:)")
        // Whatever comes now, leftovers of the previous exchange are consumed: only GET
        // RESPONSE and NFCCTAP_GETRESPONSE may pick them up, every other command drops them.
        let pendingResponse = state.pendingResponse
        let pendingCTAP = state.pendingCTAP
        state.pendingResponse = nil
        state.pendingCTAP = nil

        let command: CommandAPDU
        do {
            command = try CommandAPDU(parsing: bytes)
        } catch {
            state.chain = nil
            return .answer(ResponseAPDU(statusWord: behaviour.malformedAPDU))
        }

        if var chain = state.chain {
            state.chain = nil
            guard chain.isContinued(by: command) else {
                switch interruption(of: chain, by: command) {
                case .refuse: return .answer(ResponseAPDU(statusWord: .lastCommandOfChainExpected))
                case .endChain: return receiveWhole(command, pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
                case .keepChain:
                    let step = receiveWhole(command, pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
                    state.chain = chain
                    return step
                }
            }
            chain.append(command.data)
            if chain.overflowed, chain.instruction == .nfcctapMessage, let word = behaviour.chainOverflow {
                return .answer(ResponseAPDU(statusWord: word))
            }
            if command.isChained {
                state.chain = chain
                return .answer(ResponseAPDU(statusWord: .success))
            }
            if chain.overflowed {
                return .answer(requestTooLarge(chain.instruction))
            }
            let step = execute(chain.instruction, p1: chain.p1, p2: chain.p2, data: chain.data,
                               responseLimit: command.responseLimit, pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
            state.awaiting?.chained = true
            return step
        }
        return receiveWhole(command, pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
    }

    /// What an APDU that does not continue the open chain does to it (``Behaviour``).
    private enum ChainInterruption {
        case refuse, endChain, keepChain
    }

    private func interruption(of chain: CommandChain, by command: CommandAPDU) -> ChainInterruption {
        let commandClass = command.commandClass
        switch FIDOInstruction(commandClass: commandClass, ins: command.ins) {
        case .select? where behaviour.selectInChain: return .endChain
        case .getResponse? where behaviour.getResponseInChain: return .keepChain
        default: return .refuse
        }
    }

    /// An APDU with no chain open: the first piece of a chain, or a whole command.
    private mutating func receiveWhole(_ command: CommandAPDU, pendingResponse: [UInt8]?,
                                       pendingCTAP: PendingCTAPRequest?) -> Step {
        let instruction: FIDOInstruction
        switch validateHeader(command) {
        case .rejected(let statusWord): return .answer(ResponseAPDU(statusWord: statusWord))
        case .valid(let valid): instruction = valid
        }

        if command.isChained {
            var chain = CommandChain(first: command, instruction: instruction, limit: chainLimit(for: instruction))
            chain.append(command.data)
            state.chain = chain
            return .answer(ResponseAPDU(statusWord: .success))
        }
        return execute(instruction, p1: command.p1, p2: command.p2, data: command.data,
                       responseLimit: command.responseLimit, pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
    }

    // MARK: - Header checks

    /// CLA, INS, selection state and P1/P2, checked once per command (on the first piece of
    /// a chain), so a chain for a command that cannot run is refused before it is sent.
    private func validateHeader(_ command: CommandAPDU) -> HeaderCheck {
        let commandClass = command.commandClass
        guard commandClass == 0x00 || commandClass == 0x80 else { return .rejected(behaviour.unknownClass) }
        let unknownInstruction = commandClass == 0x00 ? behaviour.unknownInstructionClass00 : behaviour.unknownInstructionClass80
        guard let instruction = FIDOInstruction(commandClass: commandClass, ins: command.ins) else {
            return .rejected(unknownInstruction)
        }
        switch instruction {
        case .nfcctapMessage:
            guard configuration.supportsCTAP2 else { return .rejected(unknownInstruction) }
        case .nfcctapGetResponse:
            guard configuration.supportsCTAP2 && behaviour.nfcctapGetResponse else { return .rejected(unknownInstruction) }
        case .u2fRegister, .u2fAuthenticate, .u2fVersion:
            guard configuration.supportsU2F || behaviour.u2fVersionOnly != nil else { return .rejected(unknownInstruction) }
        case .select, .getResponse:
            break
        }
        if instruction.needsSelectedApplet && !state.isSelected {
            return .rejected(state.deselectedAnswer ?? behaviour.notSelected)
        }
        let (p1, p2) = (command.p1, command.p2)
        let parametersValid: Bool
        switch instruction {
        case .select: parametersValid = p1 == 0x04 && (p2 == 0x00 || p2 == 0x0C)
        case .getResponse: parametersValid = p1 == 0x00 && p2 == 0x00 || !behaviour.getResponseChecksP1P2
        case .nfcctapMessage: parametersValid = (p1 == 0x00 || p1 == NFCBinding.messageSupportsGetResponse) && p2 == 0x00
        case .nfcctapGetResponse: parametersValid = (p1 == 0x00 || p1 == NFCBinding.getResponseCancel) && p2 == 0x00
        case .u2fAuthenticate: parametersValid = U2FControl(rawValue: p1) != nil
        // U2F: REGISTER and VERSION ignore P1/P2 (old clients send P1 = 03 to REGISTER).
        case .u2fRegister, .u2fVersion: parametersValid = true
        }
        guard parametersValid else {
            return .rejected(instruction == .select ? behaviour.selectOtherP1P2 : behaviour.incorrectP1P2)
        }
        return .valid(instruction)
    }

    private enum HeaderCheck {
        case valid(FIDOInstruction)
        case rejected(StatusWord)
    }

    private func chainLimit(for instruction: FIDOInstruction) -> Int {
        instruction == .nfcctapMessage
            ? configuration.maxMessageSize
            : max(configuration.maxMessageSize, Self.minimumChainLimit)
    }

    /// CTAP reports an oversize message as CTAP2_ERR_REQUEST_TOO_LARGE inside a `9000`
    /// response; the other instructions have no such status, so they get `6700`.
    private func requestTooLarge(_ instruction: FIDOInstruction) -> ResponseAPDU {
        instruction == .nfcctapMessage
            ? ResponseAPDU(data: [CTAPStatus.requestTooLarge.rawValue], statusWord: .success)
            : ResponseAPDU(statusWord: .wrongLength)
    }

    // MARK: - A whole command

    private mutating func execute(
        _ instruction: FIDOInstruction, p1: UInt8, p2: UInt8, data: [UInt8], responseLimit: Int,
        pendingResponse: [UInt8]?, pendingCTAP: PendingCTAPRequest?
    ) -> Step {
        func awaiting(_ command: Command) -> Step {
            state.awaiting = AwaitedCommand(command: command, responseLimit: responseLimit)
            return .command(command)
        }
        switch instruction {
        case .select:
            return awaiting(.select(aid: data, p2: p2))

        case .getResponse:
            guard data.isEmpty else { return .answer(ResponseAPDU(statusWord: .wrongLength)) }
            guard let pendingResponse else { return .answer(ResponseAPDU(statusWord: behaviour.getResponseIdle)) }
            return .answer(respond(pendingResponse, limit: responseLimit, continuing: true))

        case .nfcctapMessage:
            guard !data.isEmpty else { return .answer(ResponseAPDU(statusWord: behaviour.emptyMessage)) }
            guard data.count <= configuration.maxMessageSize else { return .answer(requestTooLarge(.nfcctapMessage)) }
            let mayDefer = p1 == NFCBinding.messageSupportsGetResponse && behaviour.nfcctapGetResponse
            if mayDefer && configuration.options.busyFirst {
                // A slow card's answer: "still processing", and the request runs only when polled.
                state.pendingCTAP = PendingCTAPRequest(request: data, busyPollsRemaining: configuration.options.busyPolls)
                return .answer(Self.stillProcessing)
            }
            return awaiting(.ctap(data, mayDefer: mayDefer))

        case .nfcctapGetResponse:
            guard data.isEmpty else { return .answer(ResponseAPDU(statusWord: .wrongLength)) }
            guard var pending = pendingCTAP else { return .answer(ResponseAPDU(statusWord: behaviour.nfcctapGetResponseIdle)) }
            if p1 == NFCBinding.getResponseCancel {
                // Cancel: the request is dropped unprocessed, so nothing it would have
                // changed on the card happens.
                return .answer(ResponseAPDU(data: [CTAPStatus.keepaliveCancel.rawValue], statusWord: .success))
            }
            if pending.busyPollsRemaining > 0 {
                pending.busyPollsRemaining -= 1
                state.pendingCTAP = pending
                return .answer(Self.stillProcessing)
            }
            return awaiting(.ctapPoll(pending.request))

        case .u2fRegister where !configuration.supportsU2F, .u2fAuthenticate where !configuration.supportsU2F:
            // A card that answers U2F_VERSION only (no attestation to register with): refused
            // before the data is looked at.
            return .answer(ResponseAPDU(statusWord: behaviour.u2fVersionOnly ?? .conditionsNotSatisfied))

        case .u2fRegister:
            guard data.count == 64 else { return .answer(ResponseAPDU(statusWord: .wrongLength)) }
            return awaiting(.u2fRegister(challenge: Array(data[0..<32]), application: Array(data[32..<64])))

        case .u2fAuthenticate:
            // challenge (32) | application (32) | L (1) | key handle (L)
            guard data.count >= 65, data.count == 65 + Int(data[64]) else {
                return .answer(ResponseAPDU(statusWord: .wrongLength))
            }
            return awaiting(.u2fAuthenticate(control: p1, challenge: Array(data[0..<32]),
                                             application: Array(data[32..<64]), keyHandle: Array(data[65...])))

        case .u2fVersion:
            guard data.isEmpty || behaviour.u2fVersionIgnoresData else { return .answer(ResponseAPDU(statusWord: .wrongLength)) }
            return .answer(respond(Array(NFCBinding.selectResponseU2F.utf8), limit: responseLimit))
        }
    }

    // MARK: - Completing a command

    /// Frames the card's result for the command ``receive(_:)`` returned last.
    public mutating func complete(_ result: Result) -> ResponseAPDU {
        guard let awaited = state.awaiting else {
            preconditionFailure("CardFront.complete without a command from receive(_:)")
        }
        state.awaiting = nil
        let limit = awaited.responseLimit
        switch (awaited.command, result) {
        case (_, .statusWord(let word)):
            return ResponseAPDU(statusWord: word)
        case (.select(let aid, let p2), .run):
            if aid.isEmpty, let word = behaviour.selectWithoutAID {
                refusedSelection(deselects: behaviour.afterRefusedSelect != nil)
                return ResponseAPDU(statusWord: word)
            }
            guard selects(aid) else {
                refusedSelection(deselects: behaviour.failedSelectDeselects)
                return ResponseAPDU(statusWord: .fileNotFound)
            }
            state.isSelected = true
            state.deselectedAnswer = nil
            // P2 0C: "no response data" (ISO 7816-4 §11.1.1).
            return p2 == 0x0C && !behaviour.selectAnswersWithP2NoData
                ? ResponseAPDU(statusWord: .success) : respond(configuration.selectResponse, limit: limit)
        case (.ctap(let request, true), .deferred(let polls)), (.ctapPoll(let request), .deferred(let polls)):
            state.pendingCTAP = PendingCTAPRequest(request: request, busyPollsRemaining: polls)
            return Self.stillProcessing
        case (.ctap(let request, true), .awaitingUser), (.ctapPoll(let request), .awaitingUser):
            state.pendingCTAP = PendingCTAPRequest(request: request, busyPollsRemaining: 0)
            return Self.waitingForUser
        case (.ctap(let request, _), .ctap(let response)), (.ctapPoll(let request), .ctap(let response)):
            // Every CTAP response starts with a status byte; an empty one is an applet fault.
            guard !response.isEmpty else { return ResponseAPDU(statusWord: .noPreciseDiagnosis) }
            let chunk = request.first == CTAPCommand.getInfo.rawValue ? nil : behaviour.commandResponseChunk
            return respond(response, limit: limit, chunk: chunk)
        case (.u2fRegister, .u2f(let outcome)), (.u2fAuthenticate, .u2f(let outcome)):
            switch outcome {
            case .success(let data): return respond(data, limit: limit)
            case .failure(let statusWord): return ResponseAPDU(statusWord: statusWord)
            }
        default:
            preconditionFailure("CardFront.complete: \(result) does not answer \(awaited.command)")
        }
    }

    /// A refused SELECT: the selection ends when `deselects`, and FIDO commands then answer
    /// ``Behaviour/afterRefusedSelect`` when the card has one (else ``Behaviour/notSelected``).
    private mutating func refusedSelection(deselects: Bool) {
        guard deselects else { return }
        state.isSelected = false
        if let word = behaviour.afterRefusedSelect { state.deselectedAnswer = word }
    }

    /// Whether SELECT of `aid` selects the FIDO applet: its AID, or as the card's switches allow
    /// a right-truncated one, a longer one, or none.
    private func selects(_ aid: [UInt8]) -> Bool {
        let fido = NFCBinding.fidoAID
        if aid == fido || aid.isEmpty { return true }
        if aid.count < fido.count { return behaviour.selectPartialAID && fido.starts(with: aid) }
        return behaviour.selectLongerAID && aid.starts(with: fido)
    }

    /// Response chaining (ISO 7816-4 §5.3.4): send at most `limit` bytes (a short APDU's at most
    /// the card's chunk); the rest waits for GET RESPONSE behind `61xx`. `continuing`: the
    /// answer to GET RESPONSE, which honours Le even on a card that exceeds it otherwise.
    private mutating func respond(_ data: [UInt8], limit responseLimit: Int, continuing: Bool = false,
                                  chunk: Int? = nil) -> ResponseAPDU {
        let limit = behaviour.limit(responseLimit, continuing: continuing, chunk: chunk)
        guard data.count > limit else { return ResponseAPDU(data: data, statusWord: .success) }
        let rest = Array(data[limit...])
        state.pendingResponse = rest
        return ResponseAPDU(data: Array(data[..<limit]), statusWord: .bytesRemaining(rest.count))
    }

    /// `9100` with keepalive status PROCESSING (`01`). The status byte is sent on the first
    /// `9100` too: python-fido2 reads it from every `9100` answer, including the one to
    /// NFCCTAP_MSG, and would fail on an empty one.
    static let stillProcessing = ResponseAPDU(data: [NFCBinding.keepaliveProcessing], statusWord: .ctapStillProcessing)
    /// `9100` with keepalive UPNEEDED: the card waits for the person.
    static let waitingForUser = ResponseAPDU(data: [NFCBinding.keepaliveUserPresenceNeeded], statusWord: .ctapStillProcessing)
}
