/// Text that came from a card or a file, made safe to print: the one escaping function every
/// module uses before it shows such text to a person (probe reports, captured profiles, diff
/// lines, replay mismatches, credential listings, traces, error messages).
///
/// A card's getInfo strings, a fingerprint's or a transcript's, an RP or user name are chosen by
/// whoever made the card or the file. Printed raw, `ESC [ 2 J` clears the terminal, a newline
/// starts a line the tool never wrote, a right-to-left override reorders what follows; so every
/// control character is written as an escape instead: C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F,
/// which some terminals take as 8-bit controls), the line and paragraph separators and the
/// bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069). The escapes are
/// JSON's: `\n`, `\r`, `\t` and `\u001b`, so that escaped JSON text is still the same JSON.
/// Backslashes are kept as they are: an escape can then be mimicked by text, never acted on.
///
/// It lives in `FIDOWire`, beside ``Hex``, because every module that prints such text imports
/// the wire vocabulary, card side and host side alike.
public enum DisplayText {
    /// `text` with every control character escaped; with `keepingLineBreaks`, newlines and tabs
    /// stay (for whole reports whose lines the tool wrote, when each piece from outside was
    /// escaped already).
    public static func escaped(_ text: some StringProtocol, keepingLineBreaks: Bool = false) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else { return String(text) }
        var out = String.UnicodeScalarView()
        for scalar in scalars {
            guard needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) else {
                out.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            default:
                let digits = String(scalar.value, radix: 16)
                out.append(contentsOf: (#"\u"# + String(repeating: "0", count: max(0, 4 - digits.count)) + digits).unicodeScalars)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is written as an escape.
    static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
