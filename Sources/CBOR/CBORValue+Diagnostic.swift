//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

extension CBORValue {
    /// The RFC 8949 §8 diagnostic notation of this item.
    ///
    /// Examples: `1`, `-1`, `h'0102'`, `"text"`, `[1, 2]`, `{1: 2, "a": true}`, `true`,
    /// `null`, `undefined`. Map entries appear in insertion order (decoded maps show
    /// the order of the input). Text strings are quoted with JSON-style escapes for
    /// `"`, `\` and control characters; other characters appear as themselves.
    public var diagnosticNotation: String {
        var output = ""
        writeDiagnostic(to: &output)
        return output
    }

    private static let hexDigits: [Character] = Array("0123456789abcdef")

    private func writeDiagnostic(to output: inout String) {
        switch self {
        case .unsigned(let u):
            output += String(u)
        case .negative(let n):
            if n == .max {
                // -1 - (2^64 - 1) does not fit in a UInt64 magnitude.
                output += "-18446744073709551616"
            } else {
                output += "-"
                output += String(n + 1)
            }
        case .bytes(let bytes):
            output += "h'"
            for byte in bytes {
                output.append(CBORValue.hexDigits[Int(byte >> 4)])
                output.append(CBORValue.hexDigits[Int(byte & 0x0f)])
            }
            output += "'"
        case .text(let text):
            CBORValue.writeQuoted(text, to: &output)
        case .array(let elements):
            output += "["
            var first = true
            for element in elements {
                if !first { output += ", " }
                first = false
                element.writeDiagnostic(to: &output)
            }
            output += "]"
        case .map(let map):
            output += "{"
            var first = true
            for entry in map.storage {
                if !first { output += ", " }
                first = false
                entry.key.writeDiagnostic(to: &output)
                output += ": "
                entry.value.writeDiagnostic(to: &output)
            }
            output += "}"
        case .bool(let b):
            output += b ? "true" : "false"
        case .null:
            output += "null"
        case .undefined:
            output += "undefined"
        }
    }

    private static func writeQuoted(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let value = Int(scalar.value)
                output += "\\u00"
                output.append(hexDigits[value >> 4])
                output.append(hexDigits[value & 0x0f])
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
