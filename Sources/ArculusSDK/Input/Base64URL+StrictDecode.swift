import Foundation
import JSONSupport

extension Base64URL {
    /// Decodes a WebAuthn value: base64url (`A–Z a–z 0–9 - _`), or standard base64 (`+ /`) as
    /// apps write it with `base64EncodedString()` (the seeds' integration guide does), without
    /// padding or with exactly the `=` padding RFC 4648 puts there, and canonical (no stray bits
    /// in the last character). A text that mixes the two alphabets, whitespace and any other
    /// character are refused. The problem is a phrase after the quoted text ("has ' ', ...").
    static func strictDecode(_ text: String) -> (bytes: [UInt8]?, problem: String?) {
        let padding = text.reversed().prefix { $0 == "=" }.count
        let body = text.dropLast(padding)
        if let odd = body.first(where: { !isBase64Character($0) }) {
            if odd.isWhitespace { return (nil, "contains whitespace, which base64url has not") }
            if odd == "=" { return (nil, "has '=' before its end; padding comes last") }
            return (nil, "has '\(odd)', which base64url has not (A-Z a-z 0-9 - _ only)")
        }
        if body.contains(where: { $0 == "-" || $0 == "_" }) && body.contains(where: { $0 == "+" || $0 == "/" }) {
            return (nil, "mixes base64url ('-' '_') and standard base64 ('+' '/'); it is neither")
        }
        if body.count % 4 == 1 {
            return (nil, "is cut short: \(body.count) base64url characters make no whole number of bytes")
        }
        if padding > 0 && (padding > 2 || (body.count + padding) % 4 != 0) {
            return (nil, "has \(padding) '=' where base64url of that length has \((4 - body.count % 4) % 4)")
        }
        let urlBody = String(body).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        guard let bytes = decode(urlBody), encode(bytes) == urlBody else {
            return (nil, "is not canonical base64url: its last character has bits beyond the last byte")
        }
        return (bytes, nil)
    }

    private static func isBase64Character(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-_+/".contains(character))
    }
}
