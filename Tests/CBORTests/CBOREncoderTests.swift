import CBOR
import Testing
import TestSupport

@Suite("CBOREncoder")
struct CBOREncoderTests {
    /// The keys of `map` in the order its canonical encoding lists them.
    private func canonicalKeys(_ map: CBORMap) throws -> [CBORValue] {
        try #require(CBORDecoder.decode(CBOREncoder.encode(.map(map))).mapValue).keys
    }

    struct IntegerCase: Sendable, CustomTestStringConvertible {
        let value: CBORValue
        let hex: String
        var testDescription: String { "\(value) = \(hex)" }
    }

    static let integerCases: [IntegerCase] = [
        .init(value: .unsigned(0), hex: "00"),
        .init(value: .unsigned(23), hex: "17"),
        .init(value: .unsigned(24), hex: "1818"),
        .init(value: .unsigned(255), hex: "18ff"),
        .init(value: .unsigned(256), hex: "190100"),
        .init(value: .unsigned(65535), hex: "19ffff"),
        .init(value: .unsigned(65536), hex: "1a00010000"),
        .init(value: .unsigned(0xffff_ffff), hex: "1affffffff"),
        .init(value: .unsigned(0x1_0000_0000), hex: "1b0000000100000000"),
        .init(value: .unsigned(.max), hex: "1bffffffffffffffff"),
        .init(value: .int(-1), hex: "20"),
        .init(value: .int(-24), hex: "37"),
        .init(value: .int(-25), hex: "3818"),
        .init(value: .int(-256), hex: "38ff"),
        .init(value: .int(-257), hex: "390100"),
        .init(value: .int(-7), hex: "26"),
        .init(value: .int(Int.min), hex: "3b7fffffffffffffff"),
        .init(value: .int(Int.max), hex: "1b7fffffffffffffff"),
        .init(value: .negative(.max), hex: "3bffffffffffffffff"),
    ]

    @Test("integers use the shortest head", arguments: integerCases)
    func shortestIntegers(testCase: IntegerCase) throws {
        #expect(TestHex.string(CBOREncoder.encode(testCase.value)) == testCase.hex)
        #expect(try CBORDecoder.decode(hex(testCase.hex)) == testCase.value)
    }

    @Test("string and container lengths use the shortest head")
    func shortestLengths() {
        #expect(CBOREncoder.encode(.bytes(Array(repeating: 0, count: 23))).prefix(1) == [0x57])
        #expect(CBOREncoder.encode(.bytes(Array(repeating: 0, count: 24))).prefix(2) == [0x58, 0x18])
        #expect(CBOREncoder.encode(.bytes(Array(repeating: 0, count: 256))).prefix(3) == [0x59, 0x01, 0x00])
        #expect(CBOREncoder.encode(.text(String(repeating: "x", count: 300))).prefix(3) == [0x79, 0x01, 0x2c])
        let big = CBORValue.array(Array(repeating: .null, count: 70_000))
        let encoded = CBOREncoder.encode(big)
        #expect(encoded.prefix(5) == [0x9a, 0x00, 0x01, 0x11, 0x70])
        #expect(encoded.count == 5 + 70_000)
    }

    @Test("CTAP2 canonical key order: major type, then length, then bytes")
    func canonicalOrderMixedKeys() throws {
        // Inserted in a scrambled order.
        let map: CBORMap = ["aa": 0, 3: 0, "b": 0, -2: 0, 1: 0, "a": 0, -1: 0, 2: 0]
        let encoded = CBOREncoder.encode(.map(map))
        // 1, 2, 3 (major 0), -1, -2 (major 1), "a", "b", "aa" (major 3; shorter first).
        #expect(
            TestHex.string(encoded)
                == "a8" + "0100" + "0200" + "0300" + "2000" + "2100" + "616100" + "616200" + "62616100")
        #expect(try canonicalKeys(map) == [1, 2, 3, -1, -2, "a", "b", "aa"])
    }

    @Test("major type beats encoded length")
    func majorTypeFirst() {
        // 1000 encodes in 3 bytes and "a" in 2, but major type 0 sorts before 3;
        // -1 (0x20) is shorter than 1000 but major type 1 sorts after 0.
        let map: CBORMap = ["a": 1, -1: 2, 1000: 3, .bytes([0]): 4]
        #expect(TestHex.string(CBOREncoder.encode(.map(map))) == "a4" + "1903e803" + "2002" + "410004" + "616101")
    }

    @Test("shorter encoding sorts first within a major type")
    func lengthThenLexical() throws {
        let ints: CBORMap = [1000: 0, 24: 0, 1: 0, 23: 0, 100: 0]
        #expect(ints.entries.count == 5)
        #expect(try canonicalKeys(ints) == [1, 23, 24, 100, 1000])

        let negatives: CBORMap = [-25: 0, -1: 0, -24: 0, -1000: 0, -2: 0]
        #expect(
            try canonicalKeys(negatives) == [-1, -2, -24, -25, -1000])

        let texts: CBORMap = ["b": 0, "aa": 0, "a": 0, "ab": 0, "z": 0, "": 0]
        #expect(try canonicalKeys(texts) == ["", "a", "b", "z", "aa", "ab"])

        let byteKeys: CBORMap = [.bytes([1, 0]): 0, .bytes([2]): 0, .bytes([1]): 0, .bytes([]): 0]
        #expect(
            try canonicalKeys(byteKeys) == [
                .bytes([]), .bytes([1]), .bytes([2]), .bytes([1, 0]),
            ])
    }

    @Test("keys of every kind sort canonically")
    func allKindsOfKeys() throws {
        let map: CBORMap = [
            false: 0, .undefined: 0, [100]: 0, "aa": 0, "z": 0, -1: 0, 100: 0, 10: 0, [-1]: 0, .null: 0, true: 0,
            ["k": 1]: 0, [:]: 0, []: 0,
        ]
        let decoded = try canonicalKeys(map)
        // [] (80) and [-1] (8120) before [100] (811864); {} before {"k": 1}; f4 < f5 < f6 < f7.
        let expected: [CBORValue] = [
            10, 100, -1, "z", "aa", [], [-1], [100], [:], ["k": 1], false, true, .null, .undefined,
        ]
        #expect(decoded == expected)
    }

    @Test("canonicallyPrecedes is a strict order consistent with the encoding")
    func canonicallyPrecedes() {
        let keys: [CBORValue] = [
            0, 23, 24, 255, 256, -1, -24, -25, "a", "b", "aa", .bytes([0xff]), [1], [1, 2], false, .null,
        ]
        for a in keys {
            #expect(!a.canonicallyPrecedes(a))
            for b in keys where a != b {
                #expect(a.canonicallyPrecedes(b) != b.canonicallyPrecedes(a))
                let ea = CBOREncoder.encode(a)
                let eb = CBOREncoder.encode(b)
                let byEncoding =
                    ea[0] >> 5 != eb[0] >> 5
                    ? ea[0] >> 5 < eb[0] >> 5
                    : (ea.count != eb.count ? ea.count < eb.count : ea.lexicographicallyPrecedes(eb))
                #expect(a.canonicallyPrecedes(b) == byEncoding, "\(a) vs \(b)")
            }
        }
    }

    @Test("nested maps are sorted at every level")
    func nestedMapsSorted() {
        let inner: CBORMap = ["type": "public-key", "alg": -7]
        let outer: CBORMap = [4: [.map(inner)], 1: .map(["b": 2, "a": 1])]
        #expect(
            TestHex.string(CBOREncoder.encode(.map(outer)))
                == "a2" + "01" + "a2" + "616101" + "616202"
                + "04" + "81" + "a2" + "63616c6726" + "64747970656a7075626c69632d6b6579")
    }

    @Test("insertion order does not change the encoding")
    func insertionOrderIrrelevant() {
        let a: CBORMap = [1: "x", 2: "y", -1: "z"]
        let b: CBORMap = [-1: "z", 2: "y", 1: "x"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(CBOREncoder.encode(.map(a)) == CBOREncoder.encode(.map(b)))
    }

    @Test("encode(into:) appends after existing bytes")
    func encodeInto() {
        var buffer: [UInt8] = [0xde, 0xad]
        CBOREncoder.encode([1, "a"], into: &buffer)
        CBOREncoder.encode(.null, into: &buffer)
        #expect(TestHex.string(buffer) == "dead" + "82016161" + "f6")
    }

    @Test("encodedLength matches the encoding")
    func encodedLength() {
        let values: [CBORValue] = [
            0, 24, -1000, .unsigned(.max), .bytes([]), .bytes(Array(repeating: 1, count: 300)), "ü", [], [:],
            Samples.makeCredentialRequest, .undefined,
        ]
        for value in values {
            #expect(CBOREncoder.encodedLength(of: value) == CBOREncoder.encode(value).count)
        }
    }

    @Test("text is encoded as its UTF-8 bytes, unnormalized")
    func textBytes() {
        #expect(TestHex.string(CBOREncoder.encode("\u{e9}")) == "62c3a9")
        #expect(TestHex.string(CBOREncoder.encode("e\u{301}")) == "6365cc81")
        #expect(TestHex.string(CBOREncoder.encode("\u{10151}")) == "64f0908591")
    }

    @Test("simple values")
    func simpleValues() {
        #expect(CBOREncoder.encode(false) == [0xf4])
        #expect(CBOREncoder.encode(true) == [0xf5])
        #expect(CBOREncoder.encode(.null) == [0xf6])
        #expect(CBOREncoder.encode(.undefined) == [0xf7])
    }
}
