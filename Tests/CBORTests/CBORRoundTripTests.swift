import CBOR
import TestSupport
import Testing

/// Randomized round trips over generated trees, with a seeded generator so failures
/// reproduce.
@Suite("Randomized round trips")
struct CBORRoundTripTests {
    /// Builds random `CBORValue` trees.
    struct TreeGenerator {
        var rng: SplitMix64

        static let interestingIntegers: [UInt64] = [
            0, 1, 23, 24, 25, 255, 256, 1000, 65535, 65536, 0xffff_ffff, 0x1_0000_0000, UInt64(Int.max),
            UInt64(Int.max) + 1, .max - 1, .max,
        ]

        mutating func integer() -> UInt64 {
            switch rng.next() % 3 {
            case 0: return TreeGenerator.interestingIntegers.randomElement(using: &rng) ?? 0
            case 1: return rng.next() % 30
            default: return rng.next() >> (rng.next() % 64)
            }
        }

        mutating func text() -> String {
            let length = Int(rng.next() % 12)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length {
                let scalar: Unicode.Scalar?
                switch rng.next() % 4 {
                case 0, 1: scalar = Unicode.Scalar(UInt8(rng.next() % 128))
                case 2: scalar = Unicode.Scalar(UInt32(0x80 + rng.next() % 0xD780))  // up to U+D7FF
                default: scalar = Unicode.Scalar(UInt32(0xE000 + rng.next() % (0x110000 - 0xE000)))
                }
                if let scalar { scalars.append(scalar) }
            }
            return String(scalars)
        }

        mutating func scalar() -> CBORValue {
            switch rng.next() % 8 {
            case 0: return .unsigned(integer())
            case 1: return .negative(integer())
            case 2: return .bytes((0..<(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            case 3: return .text(text())
            case 4: return .bool(rng.next() % 2 == 0)
            case 5: return .null
            case 6: return .undefined
            default: return .int(Int(truncatingIfNeeded: rng.next()))
            }
        }

        /// A tree whose arrays/maps nest at most `depth` levels.
        mutating func value(depth: Int) -> CBORValue {
            guard depth > 0, rng.next() % 3 == 0 else { return scalar() }
            let count = Int(rng.next() % 6)
            if rng.next() % 2 == 0 {
                return .array((0..<count).map { _ in value(depth: depth - 1) })
            }
            var map = CBORMap()
            for _ in 0..<count {
                // Mostly scalar keys, sometimes container keys.
                let key = rng.next() % 8 == 0 ? value(depth: depth - 1) : scalar()
                map[key] = value(depth: depth - 1)
            }
            return .map(map)
        }
    }

    @Test("encode → decode gives back the value", arguments: [1, 2, 3, 42, 0xC0FFEE, 0xDEAD_BEEF] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        var generator = TreeGenerator(rng: SplitMix64(seed: seed))
        for _ in 0..<300 {
            let value = generator.value(depth: CBORDecoder.defaultMaximumDepth)
            let encoded = CBOREncoder.encode(value)
            #expect(CBOREncoder.encodedLength(of: value) == encoded.count)
            let decoded = try CBORDecoder.decode(encoded)
            #expect(decoded == value)
            #expect(decoded.hashValue == value.hashValue)
            // Canonical form is a fixed point, and decoding keeps it.
            #expect(CBOREncoder.encode(decoded) == encoded)
        }
    }

    @Test("random bytes never crash the decoder", arguments: [7, 8, 9] as [UInt64])
    func fuzzDecoder(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var generator = TreeGenerator(rng: SplitMix64(seed: seed ^ 0x5555))
        for _ in 0..<2000 {
            // Either random garbage or a valid encoding with a few bytes flipped.
            var bytes: [UInt8]
            if rng.next() % 2 == 0 {
                bytes = (0..<(rng.next() % 24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                bytes = CBOREncoder.encode(generator.value(depth: 4))
                for _ in 0..<(1 + rng.next() % 3) where !bytes.isEmpty {
                    let index = Int(rng.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            do {
                let value = try CBORDecoder.decode(bytes)
                // Anything accepted re-encodes to something that decodes to the same value.
                #expect(try CBORDecoder.decode(CBOREncoder.encode(value)) == value)
            } catch {
                // Typed throws: `error` is a CBORError; nothing else to check.
                _ = error.description
            }
        }
    }
}

extension CBORRoundTripTests {
    @Test("UTF-8 validation agrees with the standard library", arguments: [11, 12] as [UInt64])
    func utf8Differential(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        // Bytes biased towards lead/continuation boundaries so that every branch is hit.
        let interesting: [UInt8] = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
            0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xff,
        ]
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int(rng.next() % 7)
            let payload: [UInt8] = (0..<length).map { _ in
                rng.next() % 4 == 0
                    ? UInt8(truncatingIfNeeded: rng.next())
                    : interesting[Int(rng.next() % UInt64(interesting.count))]
            }
            let encoded = [0x60 | UInt8(length)] + payload
            let reference = String(validating: payload, as: UTF8.self)
            if let reference {
                accepted += 1
                #expect(try CBORDecoder.decode(encoded) == .text(reference))
            } else {
                #expect(throws: CBORError.invalidUTF8) { try CBORDecoder.decode(encoded) }
            }
        }
        #expect(accepted > 1000)
    }
}
