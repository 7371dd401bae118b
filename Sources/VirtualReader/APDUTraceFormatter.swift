import CBOR
import CTAP2
import ISO7816
import FIDOWire

/// Turns the APDUs a reader exchanges with the card into lines a person can read.
///
/// Every exchange gives a `>` line for the command and a `<` line for the response. A whole
/// NFCCTAP_MSG is decoded: the CTAP command's name and its CBOR in diagnostic notation, and
/// for the result the CTAP status name and CBOR. Chained pieces show as hex only; the
/// formatter collects them (and `61xx` / GET RESPONSE pieces of a response) and decodes the
/// assembled message when the last piece is through. That is why it keeps state: feed it
/// the exchanges of one reader in order.
///
/// Secrets: PINs only travel encrypted, but the trace still never shows PIN/UV material in
/// full. `pinUvAuthParam`, `newPinEnc`, `pinHashEnc`, hmac-secret's `saltEnc` and `saltAuth` and
/// a returned `pinUvAuthToken` show only their first bytes; a `largeBlobKey` only its length;
/// any byte string longer than ``maximumBytes`` is abbreviated; and the hex of an NFCCTAP_MSG's
/// data field is not printed at all (its decoding is).
public struct APDUTraceFormatter: Sendable {
    /// Byte strings and hex dumps longer than this are abbreviated.
    public var maximumBytes: Int

    private var chain: (cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8])?
    /// The instruction whose response `61xx` pieces belong to, and the bytes so far.
    private var responseContext: FIDOInstruction?
    private var responseData: [UInt8] = []
    /// The CTAP command whose result is awaited (for naming response fields).
    private var ctapCommand: UInt8?

    /// A formatter abbreviating byte strings over `maximumBytes` bytes.
    public init(maximumBytes: Int = 64) {
        self.maximumBytes = maximumBytes
    }

    /// Forgets collected pieces: call it when the card is powered off or leaves the reader,
    /// since the card forgets them too.
    public mutating func reset() {
        chain = nil
        responseContext = nil
        responseData = []
        ctapCommand = nil
    }

    /// The lines for one command/response exchange.
    public mutating func lines(command bytes: [UInt8], response responseBytes: [UInt8], elapsed: Duration? = nil) -> [String] {
        var lines: [String] = []
        let timing = elapsed.map { "  (\(Self.format($0)))" } ?? ""
        let response = ResponseAPDU(parsing: responseBytes)

        guard let command = try? CommandAPDU(parsing: bytes) else {
            chain = nil
            lines.append("> \(hex(bytes))  (malformed APDU)")
            lines.append("< \(describe(response, raw: responseBytes))\(timing)")
            return lines
        }
        let instruction = FIDOInstruction(commandClass: command.commandClass, ins: command.ins)
        let name = instruction?.name ?? "INS \(Hex.byte(command.ins))"
        let header = hex([command.cla, command.ins, command.p1, command.p2])

        if command.isChained {
            if let open = chain, open.cla == command.commandClass, open.ins == command.ins, open.p1 == command.p1, open.p2 == command.p2 {
                chain?.data += command.data
            } else {
                chain = (command.commandClass, command.ins, command.p1, command.p2, command.data)
            }
            // A piece of a CTAP message is shown by its length only: its hex would show PIN/UV
            // material the decoded message abbreviates (printed when the last piece is through).
            let pieceData = instruction == .nfcctapMessage ? "" : " \(hex(command.data))"
            lines.append("> \(name) piece \(header)\(pieceData)  (chained, \(command.data.count) bytes)")
            lines.append("< \(describe(response, raw: responseBytes))\(timing)")
            return lines
        }

        var data = command.data
        if let open = chain, open.cla == command.commandClass, open.ins == command.ins, open.p1 == command.p1, open.p2 == command.p2 {
            data = open.data + command.data
        }
        chain = nil

        switch instruction {
        case .nfcctapMessage:
            lines.append("> \(name) \(header)  (\(data.count) bytes)")
            lines.append("  " + describeCTAPRequest(data))
            ctapCommand = data.first
        case .nfcctapGetResponse:
            lines.append("> \(name) \(header)" + (command.p1 == 0x11 ? "  (cancel)" : "  (poll)"))
        default:
            lines.append("> \(name) \(hex(bytes))")
        }

        guard let response else {
            lines.append("< \(hex(responseBytes))  (no status word)\(timing)")
            return lines
        }
        if instruction == .getResponse, responseContext != nil {
            responseData += response.data
        } else {
            responseContext = instruction
            responseData = response.data
        }
        let sw = response.statusWord
        let statusText = "\(sw)" + (sw.meaning.map { " \($0)" } ?? "")
        if sw.isBytesRemaining {
            // Likewise a 61xx piece of a CTAP response (e.g. an encrypted pinUvAuthToken): the
            // whole response is decoded, secrets abbreviated, when its last piece arrives.
            let isCTAP = responseContext == .nfcctapMessage || responseContext == .nfcctapGetResponse
            let shown = isCTAP ? "(\(response.data.count) bytes) \(statusText)" : dataAndStatus(response.data, statusText)
            lines.append("< \(shown)\(timing)")
            return lines
        }
        let context = responseContext
        let whole = responseData
        responseContext = nil
        responseData = []
        if sw == .success, context == .nfcctapMessage || context == .nfcctapGetResponse, !whole.isEmpty {
            lines.append("< (\(whole.count) bytes) \(statusText)\(timing)")
            lines.append("  " + describeCTAPResponse(whole))
        } else if sw == .ctapStillProcessing {
            let keepalive = response.data.first.map { $0 == 0x01 ? " (keepalive PROCESSING)" : $0 == 0x02 ? " (keepalive UP_NEEDED)" : "" } ?? ""
            lines.append("< \(dataAndStatus(response.data, statusText))\(keepalive)\(timing)")
        } else if context == .getResponse || whole.count != response.data.count {
            lines.append("< \(dataAndStatus(response.data, statusText))  (\(whole.count) bytes in all)\(timing)")
        } else {
            lines.append("< \(dataAndStatus(response.data, statusText))\(timing)")
        }
        return lines
    }

    // MARK: - CTAP

    private func describeCTAPRequest(_ data: [UInt8]) -> String {
        guard let first = data.first else { return "(empty CTAP request)" }
        return maskedCTAPRequest(data).map { "\(CTAPCommand.name(of: first)) \($0)" } ?? CTAPCommand.name(of: first)
    }

    private func describeCTAPResponse(_ data: [UInt8]) -> String {
        guard let first = data.first else { return "(empty CTAP response)" }
        let statusName = CTAPStatus(rawValue: first).name
        return maskedCTAPResponse(data, to: ctapCommand).map { "\(statusName) \($0)" } ?? statusName
    }

    /// The CBOR of a whole CTAP request (command byte, then CBOR) in diagnostic notation, its
    /// secrets hidden as in the trace; nil when there is no CBOR.
    public func maskedCTAPRequest(_ data: [UInt8]) -> String? {
        guard let first = data.first, data.count > 1 else { return nil }
        return masked(Array(data.dropFirst()), secrets: Self.requestSecrets(first))
    }

    /// The CBOR of a whole CTAP response (status byte, then CBOR) to `command` in diagnostic
    /// notation, its secrets hidden as in the trace; nil when there is no CBOR.
    public func maskedCTAPResponse(_ data: [UInt8], to command: UInt8?) -> String? {
        guard data.count > 1 else { return nil }
        return masked(Array(data.dropFirst()), secrets: command.map(Self.responseSecrets) ?? Secrets())
    }

    private func masked(_ cbor: [UInt8], secrets: Secrets) -> String {
        switch Result(catching: { () throws(CBORError) -> CBORValue in try CBORDecoder.decode(cbor) }) {
        case .success(let value): render(value, secrets: secrets)
        case .failure(let error): "(undecodable CBOR: \(error)) \(hex(cbor))"
        }
    }

    /// What the trace hides of a request or a response: `partly` keys show their first bytes
    /// only (PIN/UV material: MACs and what is encrypted to the card), `wholly` keys show their
    /// length only (keys the card hands out), and `extensions` names extension inputs whose
    /// members `partly` hides (hmac-secret's saltEnc and saltAuth).
    struct Secrets {
        var partly: Set<Int> = []
        var wholly: Set<Int> = []
        var extensions: (key: Int, names: Set<String>, members: Set<Int>)?
    }

    /// A request's PIN/UV material (CTAP 2.1 §6): every command's pinUvAuthParam (FIDOWire's one
    /// table), clientPIN's encrypted PINs, and the hmac-secret / hmac-secret-mc salts.
    static func requestSecrets(_ command: UInt8) -> Secrets {
        var secrets = Secrets()
        if let key = CTAPCommand(rawValue: command)?.pinUvAuthParamKey { secrets.partly.insert(key) }
        switch CTAPCommand(rawValue: command) {
        case .clientPIN?:
            secrets.partly.formUnion([ClientPINKey.newPinEnc.rawValue, ClientPINKey.pinHashEnc.rawValue])
        case .makeCredential?:
            secrets.extensions = (MakeCredentialKey.extensions.rawValue, ["hmac-secret-mc"], [2, 3])
        case .getAssertion?:
            secrets.extensions = (GetAssertionKey.extensions.rawValue, ["hmac-secret"], [2, 3])
        default:
            break
        }
        return secrets
    }

    /// A response's secrets: clientPIN's encrypted pinUvAuthToken (first bytes), and the
    /// largeBlobKey of makeCredential (0x05), getAssertion / getNextAssertion (0x07) and
    /// credential management (0x0B), which is a key: its length only. (hmac-secret outputs
    /// travel inside authData, which is longer than the trace shows.)
    static func responseSecrets(_ command: UInt8) -> Secrets {
        switch CTAPCommand(rawValue: command) {
        case .clientPIN?: Secrets(partly: [ClientPINResponseKey.pinUvAuthToken.rawValue])
        case .makeCredential?: Secrets(wholly: [MakeCredentialResponseKey.largeBlobKey.rawValue])
        case .getAssertion?, .getNextAssertion?: Secrets(wholly: [GetAssertionResponseKey.largeBlobKey.rawValue])
        case .credentialManagement?, .credentialManagementPreview?:
            Secrets(wholly: [CredentialManagementResponseKey.largeBlobKey.rawValue])
        default: Secrets()
        }
    }

    // MARK: - Diagnostic notation with abbreviation

    /// Diagnostic notation, with long byte strings abbreviated and `secrets` (top-level map
    /// keys, and the members of the extension inputs it names) hidden.
    private func render(_ value: CBORValue, secrets: Secrets = Secrets()) -> String {
        switch value {
        case .bytes(let bytes):
            return bytes.count > maximumBytes ? abbreviated(bytes, keep: 16) : value.diagnosticNotation
        case .array(let items):
            return "[" + items.map { render($0) }.joined(separator: ", ") + "]"
        case .map(let map):
            let parts = map.entries.map { entry -> String in
                let key = entry.key.diagnosticNotation
                let index = entry.key.intValue
                if let index, case .bytes(let bytes) = entry.value {
                    if secrets.wholly.contains(index) { return "\(key): \(abbreviated(bytes, keep: 0))" }
                    if secrets.partly.contains(index) { return "\(key): \(abbreviated(bytes, keep: 4))" }
                }
                if let index, let inputs = secrets.extensions, index == inputs.key, case .map(let extensions) = entry.value {
                    return "\(key): " + renderExtensions(extensions, hiding: inputs.names, members: inputs.members)
                }
                return "\(key): \(render(entry.value))"
            }
            return "{" + parts.joined(separator: ", ") + "}"
        default:
            return value.diagnosticNotation
        }
    }

    /// An extensions map whose inputs named in `names` show the byte strings under `members`
    /// by their first bytes only.
    private func renderExtensions(_ extensions: CBORMap, hiding names: Set<String>, members: Set<Int>) -> String {
        let parts = extensions.entries.map { entry -> String in
            let key = entry.key.diagnosticNotation
            guard case .text(let name) = entry.key, names.contains(name) else { return "\(key): \(render(entry.value))" }
            return "\(key): \(render(entry.value, secrets: Secrets(partly: members)))"
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    private func abbreviated(_ bytes: [UInt8], keep: Int) -> String {
        let shown = Hex.string(bytes.prefix(keep), uppercase: false)
        return "h'\(shown)…' /\(bytes.count) bytes/"
    }

    // MARK: - Hex

    private func describe(_ response: ResponseAPDU?, raw: [UInt8]) -> String {
        guard let response else { return "\(hex(raw))  (no status word)" }
        let sw = response.statusWord
        let text = "\(sw)" + (sw.meaning.map { " \($0)" } ?? "")
        return response.data.isEmpty ? text : "\(hex(response.data)) \(text)"
    }

    private func dataAndStatus(_ data: [UInt8], _ status: String) -> String {
        data.isEmpty ? status : "\(hex(data)) \(status)"
    }

    /// Space-separated hex, abbreviated past ``maximumBytes``.
    private func hex(_ bytes: [UInt8]) -> String {
        if bytes.count > maximumBytes {
            let head = Hex.string(bytes.prefix(32), separator: " ")
            let tail = Hex.string(bytes.suffix(8), separator: " ")
            return "\(head) … \(tail) [\(bytes.count) bytes]"
        }
        return Hex.string(bytes, separator: " ")
    }

    /// Milliseconds with two decimals from 1 ms up; whole microseconds below (never `0.00 ms`).
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if seconds == 0, attoseconds < 1_000_000_000_000_000 {
            return "\(max(1, attoseconds / 1_000_000_000_000)) µs"
        }
        let hundredths = seconds * 100_000 + attoseconds / 10_000_000_000_000
        let whole = hundredths / 100
        let fraction = hundredths % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }
}
