import CardCrypto

/// Where an emulated card gets the values a real card draws at random.
public enum CardEntropy: Sendable, Equatable {
    /// OpenSSL's CSPRNG and randomised ECDSA: the default, and the only choice for serving a
    /// card that guards anything real.
    case system
    /// A reproducible card: every random value (card secrets, credential keys and IDs,
    /// key-agreement keys, PIN tokens, IVs) comes from an HMAC-SHA-256 stream keyed by the seed,
    /// and ECDSA nonces follow RFC 6979. The same seed, image and commands give byte-identical
    /// responses. For tests and transcripts only: anyone who knows the seed knows every key.
    case seeded([UInt8])
}

/// A deterministic byte stream: block i is HMAC-SHA-256(seed, "arculus-emulator entropy" ‖ i),
/// i a 64-bit big-endian counter.
final class DeterministicRandom {
    private let seed: [UInt8]
    private var counter: UInt64 = 0
    private var buffer: [UInt8] = []

    init(seed: [UInt8]) {
        self.seed = seed
    }

    func bytes(_ count: Int) -> [UInt8] {
        while buffer.count < count {
            var block = Array("arculus-emulator entropy".utf8)
            for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift))) }
            counter += 1
            buffer += HMACSHA256.authenticate(key: seed, data: block)
        }
        let out = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return out
    }
}
