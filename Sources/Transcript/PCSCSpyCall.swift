import FIDOWire

/// One PC/SC call of the log: its parameters by `"i name"` / `"o name"` and its return code.
struct PCSCSpyCall {
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

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var withoutSurroundingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
