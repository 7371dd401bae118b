/// Draws from a caller's random stream (the card's entropy, possibly seeded), checking that it
/// returns what was asked rather than trusting it.
enum RandomStream {
    /// `count` bytes from `randomBytes`; throws `CryptoError(function: function, reason: "random
    /// stream returned <m> bytes, asked for <count>")` otherwise.
    static func draw(_ count: Int, from randomBytes: (Int) -> [UInt8], function: String) throws -> [UInt8] {
        let bytes = randomBytes(count)
        guard bytes.count == count else {
            throw CryptoError.invalidInput(function, "random stream returned \(bytes.count) bytes, asked for \(count)")
        }
        return bytes
    }
}
