import Foundation

/// base64url without padding (RFC 4648 §5), the encoding WebAuthn JSON uses for bytes.
public enum Base64URL {
    /// Encodes `bytes` as base64url without `=` padding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url or standard base64, with or without padding (servers send either); nil
    /// for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard = text.trimmingCharacters(in: .whitespaces)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// Decodes base64url as WebAuthn values are written: the alphabet `A–Z a–z 0–9 - _`, without
    /// padding or with exactly the `=` padding RFC 4648 §5 puts there (accepted, since some
    /// servers pad), and canonical (no stray bits in the last character). Standard base64's `+`
    /// and `/`, whitespace and any other character are refused. The problem is a phrase after
    /// the quoted text ("is standard base64 ...").
    static func strictDecode(_ text: String) -> (bytes: [UInt8]?, problem: String?) {
        let padding = text.reversed().prefix { $0 == "=" }.count
        let body = text.dropLast(padding)
        if let odd = body.first(where: { !isBase64URLCharacter($0) }) {
            if odd == "+" || odd == "/" {
                return (nil, "is standard base64 ('+' or '/'); WebAuthn values are base64url ('-' and '_')")
            }
            if odd.isWhitespace { return (nil, "contains whitespace, which base64url has not") }
            return (nil, "has '\(odd)', which base64url has not (A-Z a-z 0-9 - _ only)")
        }
        if body.count % 4 == 1 {
            return (nil, "is cut short: \(body.count) base64url characters make no whole number of bytes")
        }
        if padding > 0 && (padding > 2 || (body.count + padding) % 4 != 0) {
            return (nil, "has \(padding) '=' where base64url of that length has \((4 - body.count % 4) % 4)")
        }
        guard let bytes = decode(String(body)), encode(bytes) == body else {
            return (nil, "is not canonical base64url: its last character has bits beyond the last byte")
        }
        return (bytes, nil)
    }

    private static func isBase64URLCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
