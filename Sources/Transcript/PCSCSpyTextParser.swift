/// The text form of a pcsc-spy log (what `pcsc-spy` prints) as a list of calls.
enum PCSCSpyTextParser {
    /// pcsc-spy prints each thread's calls indented by 4 spaces per thread (or prefixed with
    /// `(tN)` with `-t`): the function's name, then ` i `/` o ` parameter lines, hexdump lines
    /// under buffer names, and the ` => ` result line. Threads may interleave.
    static func calls(in lines: [String]) throws(TranscriptError) -> [PCSCSpyCall] {
        var calls: [PCSCSpyCall] = []
        var open: [String: PCSCSpyCall] = [:]
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
                open[thread] = PCSCSpyCall(function: content == "SCarControl" ? "SCardControl" : content, line: number)
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
        return calls
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
}
