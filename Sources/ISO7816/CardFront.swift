import FIDOWire
/// The card front: what a reader talks to over ISO/IEC 14443-4 (NFC), i.e. ISO/IEC 7816-4
/// APDUs carrying the FIDO NFC binding (CTAP 2.1 §11.3, FIDO U2F NFC protocol).
///
/// It selects the FIDO applet, assembles chained commands, cuts long responses into `61xx`
/// pieces for GET RESPONSE, runs the NFCCTAP_MSG / NFCCTAP_GETRESPONSE exchange and checks
/// U2F's APDU framing, then hands whole requests to the ``FIDOApplet``.
///
/// Status word choices (a malformed or unexpected APDU never stops the front; it answers
/// the word below and the next APDU is handled normally):
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
/// | an NFCCTAP_MSG (chained or not) longer than the applet's maxMsgSize | `39` + `9000` |
///
/// `6985` for "not selected" follows ISO 7816-4's meaning "conditions of use not satisfied":
/// the command exists, but the state of the card (no application selected) does not allow
/// it. `6D00` is kept for instructions that do not exist at all, so a client can tell "select
/// first" from "not supported".
///
/// All state here is volatile (RAM of the card): ``powerOn()`` and ``powerOff()`` clear it.
public final class CardFront {
    /// Largest assembled data buffered for a chained command other than NFCCTAP_MSG, unless
    /// the applet's maxMsgSize is larger.
    static let minimumChainLimit = 7609

    /// The applet requests go to.
    public let applet: any FIDOApplet
    /// The switches this front was built with.
    public let options: Options

    private var state = State()

    /// Test-double hook (ArculusCard's `CardControl`): asked before each whole command runs
    /// (chains assembled, header checked) with its instruction, P1 and data; a response it
    /// returns is answered instead of running the command.
    public var interceptCommand: ((FIDOInstruction, _ p1: UInt8, _ data: [UInt8]) -> ResponseAPDU?)?
    /// Test-double hook (ArculusCard's timing profile): whether the card is still working on a
    /// CTAP request sent with P1 `80`. Asked when it arrives (`arriving`: a yes answers `9100`)
    /// and at each NFCCTAP_GETRESPONSE poll (a yes answers `9100` again).
    public var isStillProcessing: ((_ request: [UInt8], _ arriving: Bool) -> Bool)?

    /// A front for `applet`, powered and with nothing selected.
    public init(applet: any FIDOApplet, options: Options = .init()) {
        self.applet = applet
        self.options = options
    }

    /// The card entered the field: nothing selected, no chain, nothing pending.
    public func powerOn() {
        state = State()
    }

    /// The card left the field: everything volatile is lost, in the applet too.
    public func powerOff() {
        state = State()
        applet.powerOff()
    }

    /// Whether the FIDO applet is currently selected.
    public var isAppletSelected: Bool { state.isSelected }

    /// Handles one command APDU and returns the response APDU (data + SW1 SW2).
    public func transmit(_ apdu: [UInt8]) -> [UInt8] {
        process(apdu).bytes
    }

    /// Handles one command APDU and returns the response.
    public func process(_ bytes: [UInt8]) -> ResponseAPDU {
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
            return ResponseAPDU(statusWord: .wrongLength)
        }

        if var chain = state.chain {
            state.chain = nil
            guard chain.isContinued(by: command) else {
                return ResponseAPDU(statusWord: .lastCommandOfChainExpected)
            }
            chain.append(command.data)
            if command.isChained {
                state.chain = chain
                return ResponseAPDU(statusWord: .success)
            }
            if chain.overflowed {
                return requestTooLarge(chain.instruction)
            }
            return execute(
                chain.instruction, p1: chain.p1, p2: chain.p2, data: chain.data,
                responseLimit: command.responseLimit,
                pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
        }

        let instruction: FIDOInstruction
        switch validateHeader(command) {
        case .rejected(let statusWord): return ResponseAPDU(statusWord: statusWord)
        case .valid(let valid): instruction = valid
        }

        if command.isChained {
            var chain = CommandChain(first: command, instruction: instruction, limit: chainLimit(for: instruction))
            chain.append(command.data)
            state.chain = chain
            return ResponseAPDU(statusWord: .success)
        }
        return execute(
            instruction, p1: command.p1, p2: command.p2, data: command.data,
            responseLimit: command.responseLimit,
            pendingResponse: pendingResponse, pendingCTAP: pendingCTAP)
    }

    // MARK: - Header checks

    /// CLA, INS, selection state and P1/P2, checked once per command (on the first piece of
    /// a chain), so a chain for a command that cannot run is refused before it is sent.
    private func validateHeader(_ command: CommandAPDU) -> HeaderCheck {
        let commandClass = command.commandClass
        guard commandClass == 0x00 || commandClass == 0x80 else { return .rejected(.claNotSupported) }
        guard let instruction = FIDOInstruction(commandClass: commandClass, ins: command.ins) else {
            return .rejected(.insNotSupported)
        }
        switch instruction {
        case .nfcctapMessage, .nfcctapGetResponse:
            guard applet.supportsCTAP2 else { return .rejected(.insNotSupported) }
        case .u2fRegister, .u2fAuthenticate, .u2fVersion:
            guard applet.supportsU2F else { return .rejected(.insNotSupported) }
        case .select, .getResponse:
            break
        }
        if instruction.needsSelectedApplet && !state.isSelected {
            return .rejected(.conditionsNotSatisfied)
        }
        let (p1, p2) = (command.p1, command.p2)
        let parametersValid: Bool
        switch instruction {
        case .select: parametersValid = p1 == 0x04 && (p2 == 0x00 || p2 == 0x0C)
        case .getResponse: parametersValid = p1 == 0x00 && p2 == 0x00
        case .nfcctapMessage: parametersValid = (p1 == 0x00 || p1 == 0x80) && p2 == 0x00
        case .nfcctapGetResponse: parametersValid = (p1 == 0x00 || p1 == 0x11) && p2 == 0x00
        case .u2fAuthenticate: parametersValid = [0x03, 0x07, 0x08].contains(p1)
        // U2F: REGISTER and VERSION ignore P1/P2 (old clients send P1 = 03 to REGISTER).
        case .u2fRegister, .u2fVersion: parametersValid = true
        }
        return parametersValid ? .valid(instruction) : .rejected(.incorrectP1P2)
    }

    private enum HeaderCheck {
        case valid(FIDOInstruction)
        case rejected(StatusWord)
    }

    private func chainLimit(for instruction: FIDOInstruction) -> Int {
        instruction == .nfcctapMessage
            ? applet.maxMessageSize
            : max(applet.maxMessageSize, Self.minimumChainLimit)
    }

    /// CTAP reports an oversize message as CTAP2_ERR_REQUEST_TOO_LARGE inside a `9000`
    /// response; the other instructions have no such status, so they get `6700`.
    private func requestTooLarge(_ instruction: FIDOInstruction) -> ResponseAPDU {
        instruction == .nfcctapMessage
            ? ResponseAPDU(data: [Self.ctapErrorRequestTooLarge], statusWord: .success)
            : ResponseAPDU(statusWord: .wrongLength)
    }

    // MARK: - Execution of a whole command

    private func execute(
        _ instruction: FIDOInstruction, p1: UInt8, p2: UInt8, data: [UInt8], responseLimit: Int,
        pendingResponse: [UInt8]?, pendingCTAP: PendingCTAPRequest?
    ) -> ResponseAPDU {
        if let interceptCommand, let answer = interceptCommand(instruction, p1, data) { return answer }
        switch instruction {
        case .select:
            guard !data.isEmpty else { return ResponseAPDU(statusWord: .wrongLength) }
            guard data == NFCBinding.fidoAID else {
                state.isSelected = false
                return ResponseAPDU(statusWord: .fileNotFound)
            }
            state.isSelected = true
            // P2 0C: "no response data" (ISO 7816-4 §11.1.1).
            return p2 == 0x0C ? ResponseAPDU(statusWord: .success) : respond(applet.selectResponse, limit: responseLimit)

        case .getResponse:
            guard data.isEmpty else { return ResponseAPDU(statusWord: .wrongLength) }
            guard let pendingResponse else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
            return respond(pendingResponse, limit: responseLimit)

        case .nfcctapMessage:
            guard !data.isEmpty else { return ResponseAPDU(statusWord: .wrongLength) }
            guard data.count <= applet.maxMessageSize else { return requestTooLarge(.nfcctapMessage) }
            if p1 == 0x80 && (isStillProcessing?(data, true) == true || options.busyFirst) {
                state.pendingCTAP = PendingCTAPRequest(request: data, busyPollsRemaining: options.busyFirst ? options.busyPolls : 0)
                return Self.stillProcessing
            }
            return ctapResult(applet.processCTAP2(data), limit: responseLimit)

        case .nfcctapGetResponse:
            guard data.isEmpty else { return ResponseAPDU(statusWord: .wrongLength) }
            guard var pending = pendingCTAP else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
            if p1 == 0x11 {
                // Cancel: the request is dropped unprocessed, so nothing it would have
                // changed on the card happens.
                return ResponseAPDU(data: [Self.ctapErrorKeepaliveCancel], statusWord: .success)
            }
            if pending.busyPollsRemaining > 0 || isStillProcessing?(pending.request, false) == true {
                pending.busyPollsRemaining = max(0, pending.busyPollsRemaining - 1)
                state.pendingCTAP = pending
                return Self.stillProcessing
            }
            return ctapResult(applet.processCTAP2(pending.request), limit: responseLimit)

        case .u2fRegister:
            guard data.count == 64 else { return ResponseAPDU(statusWord: .wrongLength) }
            return u2fResult(applet.u2fRegister(challenge: Array(data[0..<32]), application: Array(data[32..<64])), limit: responseLimit)

        case .u2fAuthenticate:
            // challenge (32) | application (32) | L (1) | key handle (L)
            guard data.count >= 65, data.count == 65 + Int(data[64]) else {
                return ResponseAPDU(statusWord: .wrongLength)
            }
            let outcome = applet.u2fAuthenticate(
                control: p1, challenge: Array(data[0..<32]), application: Array(data[32..<64]),
                keyHandle: Array(data[65...]))
            return u2fResult(outcome, limit: responseLimit)

        case .u2fVersion:
            guard data.isEmpty else { return ResponseAPDU(statusWord: .wrongLength) }
            return respond(Array("U2F_V2".utf8), limit: responseLimit)
        }
    }

    private func ctapResult(_ result: [UInt8], limit: Int) -> ResponseAPDU {
        // Every CTAP response starts with a status byte; an empty one is an applet fault.
        guard !result.isEmpty else { return ResponseAPDU(statusWord: .noPreciseDiagnosis) }
        return respond(result, limit: limit)
    }

    private func u2fResult(_ outcome: U2FOutcome, limit: Int) -> ResponseAPDU {
        switch outcome {
        case .success(let data): respond(data, limit: limit)
        case .failure(let statusWord): ResponseAPDU(statusWord: statusWord)
        }
    }

    /// Response chaining (ISO 7816-4 §5.3.4): send at most `limit` bytes; the rest waits
    /// for GET RESPONSE behind `61xx`.
    private func respond(_ data: [UInt8], limit: Int) -> ResponseAPDU {
        guard data.count > limit else { return ResponseAPDU(data: data, statusWord: .success) }
        let rest = Array(data[limit...])
        state.pendingResponse = rest
        return ResponseAPDU(data: Array(data[..<limit]), statusWord: .bytesRemaining(rest.count))
    }

    /// `9100` with keepalive status PROCESSING (`01`). The status byte is sent on the first
    /// `9100` too: python-fido2 reads it from every `9100` answer, including the one to
    /// NFCCTAP_MSG, and would fail on an empty one.
    private static let stillProcessing = ResponseAPDU(data: [ctapKeepaliveProcessing], statusWord: .ctapStillProcessing)

    /// CTAP2_ERR_REQUEST_TOO_LARGE.
    static let ctapErrorRequestTooLarge: UInt8 = 0x39
    /// CTAP2_ERR_KEEPALIVE_CANCEL.
    static let ctapErrorKeepaliveCancel: UInt8 = 0x2D
    /// Keepalive status STATUS_PROCESSING.
    static let ctapKeepaliveProcessing: UInt8 = 0x01
}
