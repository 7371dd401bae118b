import CTAP2
import FIDOWire

extension Transcript {
    /// Turns a `pcsc-spy` log of a PC/SC application into a transcript of what its card saw.
    ///
    /// Reads both forms pcsc-lite's spy produces: the text `pcsc-spy` prints (with or without
    /// colours, `-n`, `-t`, `-d`; its statistics footer is ignored), and the raw log that
    /// `libpcscspy` writes to the FIFO (`cat ~/pcsc-spy > raw.log`, the form `pcsc-spy FILE`
    /// replays). See `man pcsc-spy`.
    ///
    /// For the card in the chosen reader (known from `SCardConnect`, matched by its handle):
    /// - every successful `SCardTransmit` becomes a `>`/`<` exchange (the sent and received
    ///   buffers, byte for byte); a failed one becomes a comment naming the return code;
    /// - the first `SCardConnect` is a `power-on`; `SCardReconnect` with `SCARD_RESET_CARD` is a
    ///   `reset` and with `SCARD_UNPOWER_CARD` a `power-off` + `power-on`; `SCardDisconnect` and
    ///   `SCardEndTransaction` with `SCARD_UNPOWER_CARD` are a `power-off` (the next connect or
    ///   APDU a `power-on`) and with `SCARD_RESET_CARD` a `reset`;
    /// - `SCARD_W_REMOVED_CARD` is `removed`, and the next successful connect `tapped`.
    ///
    /// Headers: `@source pcsc-spy`, `@reader NAME` and, when the application asked
    /// `SCardStatus`, `@atr HEX`.
    ///
    /// - Parameters:
    ///   - log: the log's text.
    ///   - reader: which reader's card to take when the application used several: its full
    ///     name or a part of it that only one of them contains. Nil: the only one used.
    /// - Throws: ``TranscriptError`` naming the log's line: a call without its result, a
    ///   hexdump that does not add up, an `SCardTransmit` on a handle no `SCardConnect` in the
    ///   log opened, no or several readers to choose from.
    public static func importPCSCSpy(_ log: String, reader: String? = nil) throws(TranscriptError) -> Transcript {
        let parsed = try PCSCSpyLog(log)
        var importer = PCSCSpyImporter(reader: try parsed.chooseReader(reader))
        for call in parsed.calls { try importer.apply(call) }
        return importer.transcript
    }
}

// MARK: - The log as a list of calls

/// One PC/SC call of the log: its parameters by `"i name"` / `"o name"` and its return code.
private struct SpyCall {
    var function: String
    /// The line of the call's first line (the function's name, or the raw `>|` line).
    var line: Int
    var fields: [String: (value: String, line: Int)] = [:]
    /// Hexdump lines of `bSendBuffer` / `bRecvBuffer` (text form), by field key.
    var hexdumps: [String: [(text: String, line: Int)]] = [:]
    var returnCode: UInt32 = 0
    /// The return code's name (text form) or pcsc-lite's text for it (raw form).
    var returnText = ""

    var succeeded: Bool { returnCode == 0 }

    init(function: String, line: Int) {
        self.function = function
        self.line = line
    }

    func field(_ key: String) throws(TranscriptError) -> (value: String, line: Int) {
        guard let field = fields[key] else {
            throw TranscriptError(line: line, message: "\(function) without its \(key.dropFirst(2)) parameter")
        }
        return field
    }

    /// A handle value (`0x51C59F02`, or `0x????` in a `pcsc-spy -d` log).
    func handle(_ key: String) throws(TranscriptError) -> String {
        let field = try field(key)
        guard let token = field.value.split(separator: " ").first, token.hasPrefix("0x") else {
            throw TranscriptError(line: field.line, message: "\(key.dropFirst(2)) '\(field.value)' is not a handle (0x…)")
        }
        return "0x" + token.dropFirst(2).uppercased()
    }

    /// A numeric parameter: `0x00000002`, `0x0000000E (14)` or `SCARD_UNPOWER_CARD (0x00000002)`.
    func number(_ key: String) throws(TranscriptError) -> UInt64 {
        let field = try field(key)
        var text = Substring(field.value)
        if let open = text.firstRange(of: "(0x"), let close = text[open.upperBound...].firstIndex(of: ")") {
            text = text[text.index(open.lowerBound, offsetBy: 1)..<close]
        } else {
            text = text.split(separator: " ").first ?? ""
        }
        guard text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) else {
            throw TranscriptError(line: field.line, message: "\(key.dropFirst(2)) '\(field.value)' is not a number (0x…)")
        }
        return value
    }

    /// A buffer: from hexdump lines (text form) or one line of hex bytes (raw form, and
    /// `bAtr` in both). Nil for `NULL`.
    func buffer(_ key: String, length lengthKey: String) throws(TranscriptError) -> [UInt8]? {
        let length = try number(lengthKey)
        let bytes: [UInt8]?
        let line: Int
        if let dump = hexdumps[key] {
            line = dump.first?.line ?? fields[key]?.line ?? self.line
            bytes = try Self.decodeHexdump(dump, name: String(key.dropFirst(2)))
        } else {
            let field = try field(key)
            line = field.line
            bytes = try Self.decodeHexLine(field.value, name: String(key.dropFirst(2)), line: field.line)
        }
        if let bytes, UInt64(bytes.count) != length {
            throw TranscriptError(line: line, message: "\(key.dropFirst(2)) has \(bytes.count) byte(s) but \(lengthKey.dropFirst(2)) says \(length)")
        }
        return bytes
    }

    /// `00 A4 04 00 ` (what libpcscspy writes); empty for an empty buffer, nil for `NULL`.
    static func decodeHexLine(_ text: String, name: String, line: Int) throws(TranscriptError) -> [UInt8]? {
        if text.withoutSurroundingSpaces == "NULL" { return nil }
        var bytes: [UInt8] = []
        for token in text.split(separator: " ") {
            guard token.count == 2, let byte = UInt8(token, radix: 16) else {
                throw TranscriptError(line: line, message: "\(name): '\(token)' is not a hex byte")
            }
            bytes.append(byte)
        }
        return bytes
    }

    /// pcsc-spy's hexdump: `0000 00 A4 04 … 00  .........G/...`, 16 bytes a line, the offset
    /// first and the bytes in the 47 columns after it (the ASCII column after that is ignored).
    static func decodeHexdump(_ lines: [(text: String, line: Int)], name: String) throws(TranscriptError) -> [UInt8]? {
        if lines.count == 1, lines[0].text.withoutSurroundingSpaces == "NULL" { return nil }
        var bytes: [UInt8] = []
        for (index, (text, line)) in lines.enumerated() {
            let characters = Array(text)
            guard characters.count >= 7, characters[4] == " ",
                  let offset = Int(String(characters[0..<4]), radix: 16) else {
                throw TranscriptError(line: line, message: "\(name): not a hexdump line (offset, then hex bytes)")
            }
            guard offset == bytes.count else {
                throw TranscriptError(line: line, message: "\(name): hexdump offset \(String(characters[0..<4])) where \(Hex.word(UInt16(truncatingIfNeeded: bytes.count))) was expected")
            }
            let columns = characters[5..<min(characters.count, 5 + 47)]
            var lineBytes: [UInt8] = []
            for token in String(columns).split(separator: " ") {
                guard token.count == 2, let byte = UInt8(token, radix: 16) else {
                    throw TranscriptError(line: line, message: "\(name): '\(token)' is not a hex byte")
                }
                lineBytes.append(byte)
            }
            guard !lineBytes.isEmpty, lineBytes.count == 16 || index == lines.count - 1 else {
                throw TranscriptError(line: line, message: "\(name): hexdump line with \(lineBytes.count) byte(s) before the last line (16 expected)")
            }
            bytes += lineBytes
        }
        return bytes
    }

}

/// The calls of a pcsc-spy log, in the order they were made, and the readers they connected to.
private struct PCSCSpyLog {
    private(set) var calls: [SpyCall] = []
    private let lineCount: Int

    init(_ log: String) throws(TranscriptError) {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Self.withoutColours(line.hasSuffix("\r") ? String(line.dropLast()) : String(line))
        }
        lineCount = lines.count
        let firstLine = lines.first { !$0.withoutSurroundingSpaces.isEmpty } ?? ""
        if Self.isRawLine(firstLine) {
            try parseRaw(lines)
        } else {
            try parseText(lines)
        }
        guard !calls.isEmpty else {
            throw TranscriptError(line: 1, message: "no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)")
        }
        calls.sort { $0.line < $1.line }
    }

    /// The reader to import: the one `requested` names (or uniquely contains), or the only one
    /// a successful `SCardConnect` used.
    func chooseReader(_ requested: String?) throws(TranscriptError) -> String {
        var used: [(name: String, line: Int)] = []
        for call in calls where call.function == "SCardConnect" && call.succeeded {
            let name = try call.field("i szReader")
            if !used.contains(where: { $0.name == name.value }) { used.append((name.value, name.line)) }
        }
        let names = used.map(\.name)
        guard !used.isEmpty else {
            throw TranscriptError(line: lineCount, message: "no card was connected: the log has no successful SCardConnect")
        }
        guard let requested else {
            guard used.count == 1 else {
                throw TranscriptError(line: used[1].line, message: "the application used several readers (\(names.joined(separator: ", "))): choose one")
            }
            return used[0].name
        }
        if names.contains(requested) { return requested }
        let matching = names.filter { $0.contains(requested) }
        guard matching.count == 1 else {
            let problem = matching.isEmpty ? "no SCardConnect to a reader matching" : "several readers match"
            throw TranscriptError(line: matching.isEmpty ? used[0].line : used.first { $0.name == matching[1] }?.line ?? lineCount,
                                  message: "\(problem) '\(requested)' (readers connected: \(names.joined(separator: ", ")))")
        }
        return matching[0]
    }

    // MARK: Text form (what pcsc-spy prints)

    /// pcsc-spy prints each thread's calls indented by 4 spaces per thread (or prefixed with
    /// `(tN)` with `-t`): the function's name, then ` i `/` o ` parameter lines, hexdump lines
    /// under buffer names, and the ` => ` result line. Threads may interleave.
    private mutating func parseText(_ lines: [String]) throws(TranscriptError) {
        var open: [String: SpyCall] = [:]
        var lastBuffer: [String: String] = [:]
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if line.withoutSurroundingSpaces.isEmpty { continue }
            if line.hasPrefix("Thread "), line.dropFirst(7).first?.isNumber == true { break }  // statistics footer
            let (thread, content, isName) = Self.splitThread(line)
            if isName {
                if let pending = open[thread] {
                    throw TranscriptError(line: number, message: "\(content) starts before \(pending.function) (line \(pending.line)) has its result ('=>')")
                }
                open[thread] = SpyCall(function: content == "SCarControl" ? "SCardControl" : content, line: number)
                lastBuffer[thread] = nil
                continue
            }
            guard content.hasPrefix(" i ") || content.hasPrefix(" o ") || content.hasPrefix(" => ") else {
                // pcsc-spy's own remarks between calls ("Garbage:", SCardControl's parsing notes).
                if open[thread] == nil { continue }
                throw TranscriptError(line: number, message: "unexpected line in \(open[thread]!.function) (line \(open[thread]!.line))")
            }
            guard var call = open[thread] else {
                throw TranscriptError(line: number, message: "\(content.hasPrefix(" => ") ? "result" : "parameter") line outside a PC/SC call")
            }
            if content.hasPrefix(" => ") {
                guard let (code, name) = Self.textReturnCode(content) else {
                    throw TranscriptError(line: number, message: "result line without a return code ('[0x…]')")
                }
                call.returnCode = code
                call.returnText = name
                calls.append(call)
                open[thread] = nil
                continue
            }
            let direction = content.dropFirst().prefix(1)
            let body = content.dropFirst(3)
            if body.hasPrefix(" ") {
                guard let key = lastBuffer[thread] else {
                    throw TranscriptError(line: number, message: "hexdump line without a buffer name before it")
                }
                call.hexdumps[key, default: []].append((String(body.dropFirst()), number))
            } else {
                let (name, value) = Self.splitField(body)
                let key = "\(direction) \(name)"
                call.fields[key] = (value, number)
                if (name == "bSendBuffer" || name == "bRecvBuffer") && value.isEmpty {
                    lastBuffer[thread] = key
                    call.hexdumps[key] = []
                } else {
                    lastBuffer[thread] = nil
                }
            }
            open[thread] = call
        }
        if let pending = open.values.min(by: { $0.line < $1.line }) {
            throw TranscriptError(line: pending.line, message: "\(pending.function) has no result line ('=>'): the log ends in the middle of the call")
        }
    }

    /// The thread a text line belongs to, its content without the thread's indentation, and
    /// whether it is a function name.
    private static func splitThread(_ line: String) -> (thread: String, content: String, isName: Bool) {
        let spaces = line.prefix { $0 == " " }.count
        var rest = Substring(line.dropFirst(spaces))
        if rest.hasPrefix("(t"), let close = rest.firstIndex(of: ")"),
           rest[rest.index(rest.startIndex, offsetBy: 2)..<close].allSatisfy(\.isNumber),
           rest[rest.index(after: close)...].hasPrefix(" ") {
            let thread = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(close, offsetBy: 2)...]
            return (thread, String(rest), isFunctionName(rest))
        }
        if isFunctionName(rest) { return ("\(spaces)", String(rest), true) }
        return ("\(max(0, spaces - 1))", " " + rest, false)
    }

    private static func isFunctionName(_ text: Substring) -> Bool {
        text.hasPrefix("SCar") && text.allSatisfy { $0.isLetter || $0.isNumber }
    }

    /// `name: value` or `name value` (pcsc-spy uses both).
    private static func splitField(_ body: Substring) -> (String, String) {
        guard let end = body.firstIndex(where: { $0 == ":" || $0 == " " }) else { return (String(body), "") }
        var value = body[body.index(after: end)...]
        if body[end] == ":" && value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(body[..<end]), value.withoutSurroundingSpaces)
    }

    /// ` => Command successful. (SCARD_S_SUCCESS [0x00000000])  [0.000386]`
    private static func textReturnCode(_ line: String) -> (UInt32, String)? {
        guard let marker = line.ranges(of: " [0x").last else { return nil }
        let digits = line[marker.upperBound...].prefix { $0.isHexDigit }
        guard digits.count == 8, let code = UInt32(digits, radix: 16) else { return nil }
        let name = line[..<marker.lowerBound].split(separator: "(").last.map(String.init) ?? ""
        return (code, name)
    }

    // MARK: Raw form (what libpcscspy writes to the FIFO)

    private static func isRawLine(_ line: String) -> Bool {
        guard let at = line.firstIndex(of: "@") else { return false }
        return !line[..<at].isEmpty && line[..<at].allSatisfy(\.isHexDigit) && line[line.index(after: at)...].hasPrefix(">|")
    }

    /// `THREAD@>|sec|usec|Function`, then one `THREAD@value` line per parameter, then
    /// `THREAD@<|sec|usec|Function|text|0xRV`. Parameters are positional; only the calls the
    /// import needs are named.
    private mutating func parseRaw(_ lines: [String]) throws(TranscriptError) {
        var open: [String: (call: SpyCall, values: [(String, Int)])] = [:]
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            guard let at = line.firstIndex(of: "@"), line[..<at].allSatisfy(\.isHexDigit), at != line.startIndex else {
                throw TranscriptError(line: number, message: "not a raw pcsc-spy line (THREAD@…)")
            }
            let thread = String(line[..<at])
            let payload = line[line.index(after: at)...]
            if payload.hasPrefix(">|") {
                let parts = payload.split(separator: "|", omittingEmptySubsequences: false)
                guard parts.count == 4, !parts[3].isEmpty else {
                    throw TranscriptError(line: number, message: "call line is not '>|sec|usec|Function'")
                }
                if let pending = open[thread] {
                    throw TranscriptError(line: number, message: "\(parts[3]) starts before \(pending.call.function) (line \(pending.call.line)) has its result ('<|')")
                }
                open[thread] = (SpyCall(function: String(parts[3]), line: number), [])
            } else if payload.hasPrefix("<|") {
                let parts = payload.split(separator: "|", omittingEmptySubsequences: false)
                guard let (opened, values) = open[thread] else {
                    throw TranscriptError(line: number, message: "result line outside a PC/SC call")
                }
                var call = opened
                guard parts.count >= 6, let last = parts.last, last.hasPrefix("0x"),
                      let code = UInt32(last.dropFirst(2), radix: 16) else {
                    throw TranscriptError(line: number, message: "result line is not '<|sec|usec|Function|text|0xRV'")
                }
                guard parts[3] == call.function else {
                    throw TranscriptError(line: number, message: "result of \(parts[3]) where \(call.function)'s (line \(call.line)) was expected")
                }
                call.returnCode = code
                call.returnText = parts[4..<(parts.count - 1)].joined(separator: "|")
                try Self.name(&call, values)
                calls.append(call)
                open[thread] = nil
            } else {
                guard open[thread] != nil else {
                    throw TranscriptError(line: number, message: "parameter line outside a PC/SC call")
                }
                open[thread]!.values.append((String(payload), number))
            }
        }
        if let pending = open.values.map(\.call).min(by: { $0.line < $1.line }) {
            throw TranscriptError(line: pending.line, message: "\(pending.function) has no result line ('<|'): the log ends in the middle of the call")
        }
    }

    /// The positional parameters of the calls the import reads, under the text form's names.
    private static let rawParameters: [String: [String]] = [
        "SCardConnect": ["i hContext", "i szReader", "i dwShareMode", "i dwPreferredProtocols", "i phCard",
                         "i pdwActiveProtocol", "o phCard", "o dwActiveProtocol"],
        "SCardReconnect": ["i hCard", "i dwShareMode", "i dwPreferredProtocols", "i dwInitialization", "o dwActiveProtocol"],
        "SCardDisconnect": ["i hCard", "i dwDisposition"],
        "SCardEndTransaction": ["i hCard", "i dwDisposition"],
        "SCardTransmit": ["i hCard", "i pioSendPci.dwProtocol", "i pioSendPci.cbPciLength", "i bSendLength", "i bSendBuffer",
                          "o pioRecvPci.dwProtocol", "o pioRecvPci.cbPciLength", "o bRecvLength", "o bRecvBuffer"],
        "SCardStatus": ["i hCard", "i pcchReaderLen", "i pcbAtrLen", "o cchReaderLen", "o mszReaderName", "o dwState",
                        "o dwProtocol", "o bAtrLen", "o bAtr"],
    ]

    private static func name(_ call: inout SpyCall, _ values: [(String, Int)]) throws(TranscriptError) {
        guard let names = rawParameters[call.function] else { return }
        // SCardStatus logs no bAtr line when bAtrLen is NULL.
        let expected = call.function == "SCardStatus" && values.count == names.count - 1 ? names.count - 1 : names.count
        guard values.count == expected else {
            throw TranscriptError(line: call.line, message: "\(call.function) has \(values.count) parameter line(s), \(names.count) expected")
        }
        for (name, value) in zip(names, values) { call.fields[name] = value }
    }

    /// Removes ANSI colour sequences (`ESC [ … m`), which pcsc-spy prints without `-n`.
    private static func withoutColours(_ line: String) -> String {
        guard line.contains("\u{1B}") else { return line }
        var result = ""
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == "\u{1B}", line[line.index(after: index)...].hasPrefix("["),
               let end = line[index...].firstIndex(where: { $0.isLetter }) {
                index = line.index(after: end)
            } else {
                result.append(line[index])
                index = line.index(after: index)
            }
        }
        return result
    }
}

// MARK: - Calls to transcript

/// Follows the chosen reader's card through the calls and writes its transcript.
private struct PCSCSpyImporter {
    private enum CardState { case unknown, powered, unpowered, removed }
    private enum Disposition: UInt64 { case leave = 0, reset = 1, unpower = 2, eject = 3 }

    private static let removedCard: UInt32 = 0x8010_0069  // SCARD_W_REMOVED_CARD

    private let reader: String
    private(set) var transcript: Transcript
    /// Every handle the log opened, with its reader.
    private var handles: [String: String] = [:]
    /// The handles connected now, oldest first: `pcsc-spy -d` shows `0x????` for the handle a
    /// call uses (though not for the one SCardConnect returns), so such calls are matched to
    /// the card connected at the time.
    private var connected: [String] = []
    private var state = CardState.unknown

    init(reader: String) {
        self.reader = reader
        transcript = Transcript(headers: [Transcript.Header("source", "pcsc-spy"), Transcript.Header("reader", reader)])
    }

    mutating func apply(_ call: SpyCall) throws(TranscriptError) {
        switch call.function {
        case "SCardConnect":
            guard call.succeeded else { return }
            let name = try call.field("i szReader").value
            let handle = try call.handle("o phCard")
            handles[handle] = name
            connected.append(handle)
            if name == reader { powerUp() }
        case "SCardReconnect":
            guard try isOurs(call) else { return }
            guard call.succeeded else { return noteFailure(call) }
            if state != .powered { return powerUp() }
            switch Disposition(rawValue: try call.number("i dwInitialization")) {
            case .reset: add(.reset)
            case .unpower, .eject: add(.powerOff); add(.powerOn)
            case .leave, nil: break
            }
        case "SCardDisconnect", "SCardEndTransaction":
            let ours = try isOurs(call)
            if call.function == "SCardDisconnect" && call.succeeded, let index = try connectedIndex(of: call) {
                connected.remove(at: index)
            }
            guard ours else { return }
            guard call.succeeded else { return noteFailure(call) }
            guard state == .powered else { return }
            switch Disposition(rawValue: try call.number("i dwDisposition")) {
            case .reset: add(.reset)
            case .unpower, .eject: add(.powerOff); state = .unpowered
            case .leave, nil: break
            }
        case "SCardStatus":
            guard try isOurs(call), call.succeeded, transcript.header("atr") == nil,
                  call.fields["o bAtrLen"]?.value != "NULL" else { return }
            if let atr = try call.buffer("o bAtr", length: "o bAtrLen"), !atr.isEmpty {
                transcript.setHeader("atr", atr.hexString.uppercased())
            }
        case "SCardTransmit":
            guard try isOurs(call) else { return }
            guard call.succeeded else { return noteFailure(call) }
            let command = try call.buffer("i bSendBuffer", length: "i bSendLength") ?? []
            let response = try call.buffer("o bRecvBuffer", length: "o bRecvLength") ?? []
            if state != .powered { powerUp() }
            guard !command.isEmpty, response.count >= 2 else {
                return comment("SCardTransmit (line \(call.line)) sent \(command.count) byte(s) and got \(response.count): not an APDU exchange, left out")
            }
            transcript.entries.append(.exchange(command: command, response: response, note: nil))
        default:
            break
        }
    }

    /// Whether the call is for a handle connected to the chosen reader.
    private func isOurs(_ call: SpyCall) throws(TranscriptError) -> Bool {
        let handle = try call.handle("i hCard")
        if handle.contains("?") {
            let readers = Set(connected.compactMap { handles[$0] })
            guard readers.count == 1, let name = readers.first else {
                throw TranscriptError(line: call.line, message: readers.isEmpty
                    ? "\(call.function) on a hidden handle (pcsc-spy -d) while no card is connected"
                    : "\(call.function) on a hidden handle (pcsc-spy -d) while cards in several readers are connected (\(readers.sorted().joined(separator: ", "))): record without -d")
            }
            return name == reader
        }
        guard let name = handles[handle] else {
            throw TranscriptError(line: call.line, message: "\(call.function) on handle \(handle) that no SCardConnect in the log opened (the log must begin before the application connects)")
        }
        return name == reader
    }

    /// Where the call's handle is in `connected` (for a hidden handle: the newest).
    private func connectedIndex(of call: SpyCall) throws(TranscriptError) -> Int? {
        let handle = try call.handle("i hCard")
        return handle.contains("?") ? connected.indices.last : connected.lastIndex(of: handle)
    }

    private mutating func powerUp() {
        switch state {
        case .powered: return
        case .removed: add(.tapped)
        case .unknown, .unpowered: add(.powerOn)
        }
        state = .powered
    }

    private mutating func noteFailure(_ call: SpyCall) {
        comment("\(call.function) failed: \(call.returnText) [0x\(String(call.returnCode, radix: 16, uppercase: true))]")
        if call.returnCode == Self.removedCard && state != .removed {
            add(.removed)
            state = .removed
        }
    }

    private mutating func add(_ event: CardEvent) {
        transcript.entries.append(.event(event))
    }

    /// Comments only after the first entry: the text form keeps no comment before it.
    private mutating func comment(_ text: String) {
        guard !transcript.entries.isEmpty else { return }
        transcript.entries.append(.comment(text))
    }
}

private extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var withoutSurroundingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
