/// Test helpers for writing byte strings as hex.
enum Hex {
    /// Decodes hex text, ignoring spaces and newlines; traps on bad input (test vectors are constants).
    static func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }.map { $0 }
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
                preconditionFailure("bad hex \(digits[index])\(digits[index + 1])")
            }
            return byte
        }
    }

    /// Lower-case hex of `bytes`.
    static func string(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
