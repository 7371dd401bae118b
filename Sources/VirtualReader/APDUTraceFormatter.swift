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
/// full. `pinUvAuthParam`, `newPinEnc`, `pinHashEnc` and a returned `pinUvAuthToken` show
/// only their first bytes, any byte string longer than ``maximumBytes`` is abbreviated, and
/// the hex of an NFCCTAP_MSG's data field is not printed at all (its decoding is).
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
        let commandName = CTAPCommand.name(of: first)
        guard data.count > 1 else { return commandName }
        switch Result(catching: { () throws(CBORError) -> CBORValue in try CBORDecoder.decode(Array(data.dropFirst())) }) {
        case .success(let value):
            return "\(commandName) \(render(value, secrets: Self.requestSecrets[first] ?? []))"
        case .failure(let error):
            return "\(commandName) (undecodable CBOR: \(error)) \(hex(Array(data.dropFirst())))"
        }
    }

    private func describeCTAPResponse(_ data: [UInt8]) -> String {
        guard let first = data.first else { return "(empty CTAP response)" }
        let statusName = CTAPStatus(rawValue: first).name
        guard data.count > 1 else { return statusName }
        switch Result(catching: { () throws(CBORError) -> CBORValue in try CBORDecoder.decode(Array(data.dropFirst())) }) {
        case .success(let value):
            let secrets = ctapCommand.flatMap { Self.responseSecrets[$0] } ?? []
            return "\(statusName) \(render(value, secrets: secrets))"
        case .failure(let error):
            return "\(statusName) (undecodable CBOR: \(error)) \(hex(Array(data.dropFirst())))"
        }
    }

    /// Top-level request map keys holding PIN/UV material, per CTAP command byte
    /// (CTAP 2.1 §6): the pinUvAuthParam of each command, and clientPIN's encrypted PINs.
    private static let requestSecrets: [UInt8: Set<Int>] = [
        0x01: [8],  // makeCredential pinUvAuthParam
        0x02: [6],  // getAssertion pinUvAuthParam
        0x06: [4, 5, 6],  // clientPIN pinUvAuthParam, newPinEnc, pinHashEnc
        0x09: [5],  // bioEnrollment pinUvAuthParam
        0x0A: [4],  // credentialManagement pinUvAuthParam
        0x0C: [5],  // largeBlobs pinUvAuthParam
        0x0D: [4],  // config pinUvAuthParam
        0x40: [5],
        0x41: [4],
    ]

    /// Top-level response map keys to hide: clientPIN's (encrypted) pinUvAuthToken.
    private static let responseSecrets: [UInt8: Set<Int>] = [0x06: [2]]

    // MARK: - Diagnostic notation with abbreviation

    /// Diagnostic notation, with long byte strings abbreviated and `secrets` (top-level
    /// map keys) shown by their first bytes only.
    private func render(_ value: CBORValue, secrets: Set<Int> = []) -> String {
        switch value {
        case .bytes(let bytes):
            return bytes.count > maximumBytes ? abbreviated(bytes, keep: 16) : value.diagnosticNotation
        case .array(let items):
            return "[" + items.map { render($0) }.joined(separator: ", ") + "]"
        case .map(let map):
            let parts = map.entries.map { entry -> String in
                let key = entry.key.diagnosticNotation
                if let index = entry.key.intValue, secrets.contains(index), case .bytes(let bytes) = entry.value {
                    return "\(key): \(abbreviated(bytes, keep: 4))"
                }
                return "\(key): \(render(entry.value))"
            }
            return "{" + parts.joined(separator: ", ") + "}"
        default:
            return value.diagnosticNotation
        }
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

    /// Milliseconds with two decimals.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let hundredths = seconds * 100_000 + attoseconds / 10_000_000_000_000
        let whole = hundredths / 100
        let fraction = hundredths % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }
}
