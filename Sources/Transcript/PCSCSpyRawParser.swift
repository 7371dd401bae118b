/// The raw form of a pcsc-spy log (what `libpcscspy` writes to the FIFO) as a list of calls.
enum PCSCSpyRawParser {
    /// Whether `line` is a raw log's call line (`THREAD@>|…`).
    static func isRawLine(_ line: String) -> Bool {
        guard let at = line.firstIndex(of: "@") else { return false }
        return !line[..<at].isEmpty && line[..<at].allSatisfy(\.isHexDigit) && line[line.index(after: at)...].hasPrefix(">|")
    }

    /// `THREAD@>|sec|usec|Function`, then one `THREAD@value` line per parameter, then
    /// `THREAD@<|sec|usec|Function|text|0xRV`. Parameters are positional; only the calls the
    /// import needs are named.
    static func calls(in lines: [String]) throws(TranscriptError) -> [PCSCSpyCall] {
        var calls: [PCSCSpyCall] = []
        var open: [String: (call: PCSCSpyCall, values: [(String, Int)])] = [:]
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
                open[thread] = (PCSCSpyCall(function: String(parts[3]), line: number), [])
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
        return calls
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

    private static func name(_ call: inout PCSCSpyCall, _ values: [(String, Int)]) throws(TranscriptError) {
        guard let names = rawParameters[call.function] else { return }
        // SCardStatus logs no bAtr line when bAtrLen is NULL.
        let expected = call.function == "SCardStatus" && values.count == names.count - 1 ? names.count - 1 : names.count
        guard values.count == expected else {
            throw TranscriptError(line: call.line, message: "\(call.function) has \(values.count) parameter line(s), \(names.count) expected")
        }
        for (name, value) in zip(names, values) { call.fields[name] = value }
    }
}
