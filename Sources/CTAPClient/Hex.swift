/// Upper-case hex for messages and traces.
enum Hex {
    static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text = ""
        for byte in bytes {
            let digits = String(byte, radix: 16, uppercase: true)
            text += digits.count == 1 ? "0" + digits : digits
        }
        return text.isEmpty ? "(nothing)" : text
    }

    static func word(_ word: UInt16) -> String {
        let digits = String(word, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
