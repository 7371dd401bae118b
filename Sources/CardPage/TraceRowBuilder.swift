#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FIDOWire
import ISO7816
import Transcript
import VirtualReader

/// Makes the card page's trace rows (``TraceRow``) from a reader's events: it groups the APDUs of
/// one logical message — chained command pieces, `61xx`/GET RESPONSE pieces of the answer, the
/// `9100` answers and NFCCTAP_GETRESPONSE polls of a card still working — into one row, decoded
/// and masked by ``APDUTraceFormatter``. Feed it one reader's events in order.
public struct TraceRowBuilder: Sendable {
    private var formatter = APDUTraceFormatter()
    private var open: OpenMessage?
    private var nextID = 1
    /// The clock rows are stamped with (seconds since 1970); replaceable for tests.
    var now: @Sendable () -> Double = TraceRowBuilder.wallClock

    /// A message whose last answer has not come yet.
    private struct OpenMessage {
        var kind: TraceRow.Kind
        var instruction: FIDOInstruction?
        var cla: UInt8
        var ins: UInt8
        var request: [UInt8] = []
        var response: [UInt8] = []
        var lines: [String] = []
        var duration: Duration = .zero
        /// Command pieces are still coming (the last one sent had the chaining bit).
        var chaining = false
    }

    public init() {}

    /// Forgets the message in progress (after events were lost); row numbers go on.
    mutating func restart() {
        formatter.reset()
        open = nil
    }

    /// The rows `event` completes (none, one, or two when a message was cut short by it).
    public mutating func rows(for event: VPCDBridge.Event) -> [TraceRow] {
        switch event {
        case .exchange(let command, let response, let elapsed):
            return exchange(command, response, elapsed)
        case .connected:
            return interrupted() + [readerRow("card on the reader")]
        case .disconnected(let reason):
            formatter.reset()
            return interrupted() + [readerRow("card off the reader", detail: "\(reason)")]
        case .powerOn:
            formatter.reset()
            return interrupted() + [readerRow("power on")]
        case .powerOff:
            formatter.reset()
            return interrupted() + [readerRow("power off")]
        case .reset:
            formatter.reset()
            return interrupted() + [readerRow("reset")]
        case .waitingForDriver, .atr, .stopped:
            return []
        }
    }

    private mutating func exchange(_ commandBytes: [UInt8], _ responseBytes: [UInt8], _ elapsed: Duration) -> [TraceRow] {
        let lines = formatter.lines(command: commandBytes, response: responseBytes, elapsed: elapsed)
        let command = try? CommandAPDU(parsing: commandBytes)
        let instruction = command.flatMap { FIDOInstruction(commandClass: $0.commandClass, ins: $0.ins) }
        var finished: [TraceRow] = []
        if var message = open, let command, continues(message, command, instruction) {
            if message.chaining { message.request += command.data }
            message.chaining = command.isChained && message.chaining
            open = message
        } else {
            finished += interrupted()
            let kind: TraceRow.Kind = switch instruction {
            case .nfcctapMessage?, .nfcctapGetResponse?: .ctap
            case .u2fRegister?, .u2fAuthenticate?, .u2fVersion?: .u2f
            default: .iso
            }
            open = OpenMessage(kind: kind, instruction: instruction, cla: command?.commandClass ?? 0, ins: command?.ins ?? 0,
                               request: command?.data ?? commandBytes, chaining: command?.isChained ?? false)
        }
        open?.lines += lines
        open?.duration += elapsed
        guard let response = ResponseAPDU(parsing: responseBytes) else {
            return finished + [close(status: responseBytes.isEmpty ? "no answer (the card left the field)" : "no status word", ok: false)]
        }
        let sw = response.statusWord
        if open?.chaining == true, sw == .success { return finished }
        if sw.isBytesRemaining {
            open?.response += response.data
            return finished
        }
        if sw == .ctapStillProcessing, open?.kind == .ctap { return finished }
        open?.response += response.data
        return finished + [close(status: "\(sw)", ok: sw == .success)]
    }

    /// Whether `command` carries on `message`: its next chained piece, a GET RESPONSE for its
    /// answer's next piece, or an NFCCTAP_GETRESPONSE poll of a card still working on it.
    private func continues(_ message: OpenMessage, _ command: CommandAPDU, _ instruction: FIDOInstruction?) -> Bool {
        if message.chaining { return command.commandClass == message.cla && command.ins == message.ins }
        if instruction == .getResponse { return true }
        return instruction == .nfcctapGetResponse && message.kind == .ctap
    }

    /// The open message, ended without its answer.
    private mutating func interrupted() -> [TraceRow] {
        guard open != nil else { return [] }
        return [close(status: "no answer", ok: false)]
    }

    private mutating func close(status statusWord: String, ok: Bool) -> TraceRow {
        let message = open!
        open = nil
        var row = TraceRow(id: nextID, time: now(), kind: message.kind, command: "", request: nil, response: nil,
                           status: statusWord, ok: ok, duration: message.duration, apdus: message.lines)
        nextID += 1
        switch message.instruction {
        case .nfcctapMessage?, .nfcctapGetResponse?:
            row.command = message.request.isEmpty ? "NFCCTAP_MSG" : CTAPNames.commandName(message.request)
            row.request = formatter.maskedCTAPRequest(message.request)
            if ok, let status = message.response.first {
                row.status = CTAPStatus(rawValue: status).name
                row.ok = status == 0
                row.response = formatter.maskedCTAPResponse(message.response, to: message.request.first)
            }
        case .select?:
            row.command = message.request == NFCBinding.fidoAID ? "SELECT FIDO" : "SELECT"
            row.request = Self.hex(message.request)
            row.response = message.response.isEmpty ? nil : Self.hex(message.response)
        case let instruction?:
            row.command = instruction.name
            row.request = message.request.isEmpty ? nil : Self.hex(message.request)
            row.response = message.response.isEmpty ? nil : Self.hex(message.response)
        case nil:
            row.command = "INS \(Hex.byte(message.ins))"
            row.request = message.request.isEmpty ? nil : Self.hex(message.request)
            row.response = message.response.isEmpty ? nil : Self.hex(message.response)
        }
        return row
    }

    private mutating func readerRow(_ what: String, detail: String? = nil) -> TraceRow {
        defer { nextID += 1 }
        return TraceRow(id: nextID, time: now(), kind: .reader, command: what, request: nil, response: detail, status: "",
                        ok: true, duration: .zero, apdus: [])
    }

    /// Hex, abbreviated past 64 bytes as the trace abbreviates.
    private static func hex(_ bytes: [UInt8]) -> String {
        guard bytes.count > 64 else { return Hex.string(bytes, separator: " ") }
        return Hex.string(bytes.prefix(32), separator: " ") + " … " + Hex.string(bytes.suffix(8), separator: " ") + " [\(bytes.count) bytes]"
    }

    /// Now, in seconds since 1970.
    static let wallClock: @Sendable () -> Double = {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
