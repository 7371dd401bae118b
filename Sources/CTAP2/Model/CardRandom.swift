import CardCrypto

/// Where the card's random values come from, as a value: the model owns its generator, so a copy
/// of the model is also a copy of where the stream stands (restoring a snapshot rewinds it).
///
/// `.system` asks OpenSSL's CSPRNG every time (nothing to rewind); `.seeded` is the deterministic
/// stream of ``CardEntropy/seeded(_:)``: block *i* is HMAC-SHA-256(seed, "arculus-emulator
/// entropy" ‖ *i*), *i* a 64-bit big-endian counter.
public struct CardRandom: Sendable {
    private var seed: [UInt8]?
    private var counter: UInt64 = 0
    private var buffer: [UInt8] = []
    private var bufferStart = 0

    /// The generator `entropy` describes.
    public init(_ entropy: CardEntropy) {
        switch entropy {
        case .system: seed = nil
        case .seeded(let bytes): seed = bytes
        }
    }

    /// Whether the values are reproducible (a seeded card).
    public var isDeterministic: Bool { seed != nil }

    /// The next `count` bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        guard let seed else { return SecureRandom.bytes(count) }
        while buffer.count - bufferStart < count {
            var block = Array("arculus-emulator entropy".utf8)
            for shift in stride(from: 56, through: 0, by: -8) {
                block.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift)))
            }
            counter += 1
            if bufferStart > 0 {
                buffer.removeFirst(bufferStart)
                bufferStart = 0
            }
            buffer += HMACSHA256.authenticate(key: seed, data: block)
        }
        let out = Array(buffer[bufferStart..<(bufferStart + count)])
        bufferStart += count
        return out
    }

    /// A fresh P-256 key (retrying the negligible out-of-range draw).
    public mutating func p256Key() -> P256PrivateKey {
        while true {
            if let key = try? P256PrivateKey(rawScalar: bytes(32)) { return key }
        }
    }
}
