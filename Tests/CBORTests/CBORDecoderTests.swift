import CBOR
import Testing
import TestSupport

@Suite("CBORDecoder")
struct CBORDecoderTests {
    // MARK: Malformed and unsupported input

    static let trailingBytesCases: [ErrorCase] = [
        ErrorCase("0000", .trailingBytes(count: 1)),
        ErrorCase("a0 01 02", .trailingBytes(count: 2)),
        ErrorCase("83 01 02 03 ff", .trailingBytes(count: 1)),
        ErrorCase("f6 f6 f6 f6", .trailingBytes(count: 3)),
    ]

    static let indefiniteLengthCases: [ErrorCase] = [
        ErrorCase("5f 41 00 ff", .indefiniteLength),
        ErrorCase("5f", .indefiniteLength),
        ErrorCase("7f 61 61 ff", .indefiniteLength),
        ErrorCase("9f ff", .indefiniteLength),
        ErrorCase("9f", .indefiniteLength),
        ErrorCase("bf ff", .indefiniteLength),
        ErrorCase("bf 61 61 01 ff", .indefiniteLength),
        ErrorCase("82 01 9f ff", .indefiniteLength),
        ErrorCase("ff", .indefiniteLength),  // a lone "break"
        ErrorCase("81 ff", .indefiniteLength),
        ErrorCase("1f", .indefiniteLength),
        ErrorCase("3f", .indefiniteLength),
        ErrorCase("df", .indefiniteLength),  // ai 31 is reported before the tag
    ]

    static let tagCases: [ErrorCase] = [
        ErrorCase("c0 00", .unsupportedMajorType(6)),
        ErrorCase("c0", .unsupportedMajorType(6)),
        ErrorCase("c2 41 01", .unsupportedMajorType(6)),
        ErrorCase("d8 18 41 00", .unsupportedMajorType(6)),
        ErrorCase("d9 d9f7 80", .unsupportedMajorType(6)),
        ErrorCase("a1 01 c1 00", .unsupportedMajorType(6)),
        ErrorCase("d8", .truncated),  // the head itself is incomplete
    ]

    static let floatAndSimpleCases: [ErrorCase] = [
        ErrorCase("f9 3c00", .unsupportedSimpleValue(25)),
        ErrorCase("fa 47c35000", .unsupportedSimpleValue(26)),
        ErrorCase("fb 3ff199999999999a", .unsupportedSimpleValue(27)),
        ErrorCase("f9", .truncated),
        ErrorCase("f9 00", .truncated),
        ErrorCase("fb 00 00 00", .truncated),
        ErrorCase("f0", .unsupportedSimpleValue(16)),
        ErrorCase("e0", .unsupportedSimpleValue(0)),
        ErrorCase("f3", .unsupportedSimpleValue(19)),
        ErrorCase("f8 ff", .unsupportedSimpleValue(255)),
        ErrorCase("f8 20", .unsupportedSimpleValue(32)),
        ErrorCase("f8 18", .unsupportedSimpleValue(24)),
        ErrorCase("f8 1f", .unsupportedSimpleValue(31)),
        ErrorCase("f8 00", .nonCanonicalEncoding),
        ErrorCase("f8 14", .nonCanonicalEncoding),  // false in the two-byte form
        ErrorCase("f8 17", .nonCanonicalEncoding),
        ErrorCase("f8", .truncated),
        ErrorCase("82 f5 f9 3c00", .unsupportedSimpleValue(25)),
    ]

    static let reservedAdditionalInfoCases: [ErrorCase] =
        [
            "1c", "1d", "1e", "3c", "3d", "3e", "5c", "5d", "5e", "7c", "7d", "7e",
            "9c", "9d", "9e", "bc", "bd", "be", "dc", "dd", "de", "fc", "fd", "fe", "81 1c",
        ]
        .map { ErrorCase($0, .reservedAdditionalInfo) }

    static let nonCanonicalCases: [ErrorCase] = [
        ErrorCase("18 05", .nonCanonicalEncoding),
        ErrorCase("18 00", .nonCanonicalEncoding),
        ErrorCase("18 17", .nonCanonicalEncoding),
        ErrorCase("19 00ff", .nonCanonicalEncoding),
        ErrorCase("19 0000", .nonCanonicalEncoding),
        ErrorCase("1a 0000ffff", .nonCanonicalEncoding),
        ErrorCase("1b 00000000ffffffff", .nonCanonicalEncoding),
        ErrorCase("1b 0000000000000000", .nonCanonicalEncoding),
        ErrorCase("38 00", .nonCanonicalEncoding),
        ErrorCase("39 0010", .nonCanonicalEncoding),
        ErrorCase("3b 00000000ffffffff", .nonCanonicalEncoding),
        ErrorCase("58 01 00", .nonCanonicalEncoding),
        ErrorCase("59 0001 00", .nonCanonicalEncoding),
        ErrorCase("78 01 61", .nonCanonicalEncoding),
        ErrorCase("98 01 00", .nonCanonicalEncoding),
        ErrorCase("b8 01 00 00", .nonCanonicalEncoding),
        ErrorCase("a1 18 01 00", .nonCanonicalEncoding),  // non-shortest key
        ErrorCase("82 00 19 0017", .nonCanonicalEncoding),
    ]

    static let hugeLengthCases: [ErrorCase] = [
        ErrorCase("5b ffffffffffffffff", .lengthExceedsInput(declared: .max, available: 0)),
        ErrorCase("5b ffffffffffffffff 010203", .lengthExceedsInput(declared: .max, available: 3)),
        ErrorCase("7b 7fffffffffffffff 010203", .lengthExceedsInput(declared: 0x7fff_ffff_ffff_ffff, available: 3)),
        ErrorCase("5a ffffffff 00", .lengthExceedsInput(declared: 0xffff_ffff, available: 1)),
        ErrorCase("7a ffffffff 00", .lengthExceedsInput(declared: 0xffff_ffff, available: 1)),
        ErrorCase("9b ffffffffffffffff", .lengthExceedsInput(declared: .max, available: 0)),
        ErrorCase("bb ffffffffffffffff 00 00", .lengthExceedsInput(declared: .max, available: 2)),
        ErrorCase("9a 7fffffff 00", .lengthExceedsInput(declared: 0x7fff_ffff, available: 1)),
        ErrorCase("98 19 01 02", .lengthExceedsInput(declared: 25, available: 2)),
        ErrorCase("98 05 01 02", .nonCanonicalEncoding),  // the shortest-form check comes first
        ErrorCase("a3 01 02", .lengthExceedsInput(declared: 3, available: 2)),
        ErrorCase("59 0100 00", .lengthExceedsInput(declared: 256, available: 1)),
        ErrorCase("82 41 00 5b ffffffffffffffff", .lengthExceedsInput(declared: .max, available: 0)),
        ErrorCase("41", .lengthExceedsInput(declared: 1, available: 0)),
        ErrorCase("81", .lengthExceedsInput(declared: 1, available: 0)),
        ErrorCase("82 00", .lengthExceedsInput(declared: 2, available: 1)),
        ErrorCase("a1", .lengthExceedsInput(declared: 1, available: 0)),
        // Enough bytes for the count, not for the elements: the elements run out.
        ErrorCase("a2 01 02", .truncated),
        ErrorCase("a1 00", .truncated),
        ErrorCase("9a 01 ff 00", .truncated),  // the four-byte count itself is cut short
    ]

    static let invalidUTF8Cases: [ErrorCase] = [
        ErrorCase("61 ff", .invalidUTF8),
        ErrorCase("61 80", .invalidUTF8),  // lone continuation byte
        ErrorCase("61 c3", .invalidUTF8),  // sequence cut by the string length
        ErrorCase("62 c3 28", .invalidUTF8),  // bad continuation
        ErrorCase("62 c0 80", .invalidUTF8),  // overlong NUL
        ErrorCase("63 e0 80 af", .invalidUTF8),  // overlong "/"
        ErrorCase("63 ed a0 80", .invalidUTF8),  // UTF-16 surrogate U+D800
        ErrorCase("64 f4 90 80 80", .invalidUTF8),  // beyond U+10FFFF
        ErrorCase("65 f8 88 80 80 80", .invalidUTF8),  // five-byte form
        ErrorCase("a1 62 c0 80 00", .invalidUTF8),  // in a map key
        ErrorCase("82 61 61 61 fe", .invalidUTF8),
    ]

    static let duplicateKeyCases: [ErrorCase] = [
        ErrorCase("a2 01 00 01 00", .duplicateMapKey),
        ErrorCase("a2 01 00 01 01", .duplicateMapKey),
        ErrorCase("a2 61 61 00 61 61 01", .duplicateMapKey),
        ErrorCase("a3 20 00 01 00 20 00", .duplicateMapKey),
        ErrorCase("a2 41 00 00 41 00 00", .duplicateMapKey),
        ErrorCase("a2 82 01 02 00 82 01 02 00", .duplicateMapKey),
        ErrorCase("a2 f6 00 f6 00", .duplicateMapKey),
        // Reported as soon as the repeated key is read, before its (truncated) value.
        ErrorCase("a2 01 00 01", .duplicateMapKey),
        ErrorCase("a1 00 a2 05 05 05 05", .duplicateMapKey),
        // Keys that are maps keyed by maps, the same members in another order: one key. Read
        // again to compare, a key's inner maps are not checked twice, but were checked once:
        ErrorCase("a2 a1 a2 00 00 01 00 00 00 a1 a2 01 00 00 00 00 01", .duplicateMapKey),
        ErrorCase("a1 a1 a2 00 00 00 00 00 00", .duplicateMapKey),
    ]

    @Test("trailing bytes", arguments: trailingBytesCases)
    func trailingBytes(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("indefinite lengths", arguments: indefiniteLengthCases)
    func indefiniteLengths(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("tags", arguments: tagCases)
    func tags(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("floats and simple values", arguments: floatAndSimpleCases)
    func floatsAndSimpleValues(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("reserved additional information 28...30", arguments: reservedAdditionalInfoCases)
    func reservedAdditionalInfo(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("non-shortest heads", arguments: nonCanonicalCases)
    func nonCanonical(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("declared lengths beyond the input", arguments: hugeLengthCases)
    func hugeLengths(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("invalid UTF-8 in text strings", arguments: invalidUTF8Cases)
    func invalidUTF8(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("duplicate map keys", arguments: duplicateKeyCases)
    func duplicateKeys(testCase: ErrorCase) {
        #expect(throws: testCase.error) { try CBORDecoder.decode(hex(testCase.hex)) }
    }

    @Test("duplicate keys in a large map (hash-based detection)")
    func duplicateKeysLargeMap() throws {
        var unique = CBORMap()
        for key in 0..<40 { unique[int: key] = .int(key) }
        let encoded = CBOREncoder.encode(.map(unique))
        #expect(try CBORDecoder.decode(encoded).mapValue?.count == 40)
        // Same map with the last key replaced by a copy of key 7.
        var duplicated = Array(encoded.dropLast(4))  // drop key 39 (1827) and value 39 (1827)
        duplicated += [0x07, 0x00]
        #expect(throws: CBORError.duplicateMapKey) { try CBORDecoder.decode(duplicated) }
    }

    @Test("canonically-equivalent but different text keys are not duplicates")
    func unnormalizedTextKeys() throws {
        // "é" precomposed (c3 a9) and decomposed (65 cc 81) are different CBOR keys.
        let value = try CBORDecoder.decode(hex("a2 62c3a9 01 6365cc81 02"))
        let map = try #require(value.mapValue)
        #expect(map.count == 2)
        #expect(map[text: "\u{e9}"] == 1)
        #expect(map[text: "e\u{301}"] == 2)
    }

    @Test("empty input is truncated")
    func emptyInput() {
        #expect(throws: CBORError.truncated) { try CBORDecoder.decode([]) }
        #expect(throws: CBORError.truncated) { try CBORDecoder.decodePrefix(([] as [UInt8])[...]) }
    }

    // MARK: Nesting

    @Test("nesting limit", arguments: [
        // exactly 8 levels is fine; 9 is not
        ErrorCase(String(repeating: "81", count: 9) + "00", .nestingTooDeep(limit: 8)),
        ErrorCase(String(repeating: "a1 01", count: 9) + "00", .nestingTooDeep(limit: 8)),
        ErrorCase(String(repeating: "81", count: 9) + "80", .nestingTooDeep(limit: 8)),
        ErrorCase(String(repeating: "81", count: 8) + "80", .nestingTooDeep(limit: 8)),  // [] is a level too
        ErrorCase("80", .nestingTooDeep(limit: 0), maximumDepth: 0),
        ErrorCase("a0", .nestingTooDeep(limit: 0), maximumDepth: 0),
        ErrorCase("a1 81 00 00", .nestingTooDeep(limit: 1), maximumDepth: 1),  // array as a map key
        ErrorCase("82 00 82 00 80", .nestingTooDeep(limit: 2), maximumDepth: 2),
        // Thousands of levels: rejected at the limit, no deep recursion.
        ErrorCase(String(repeating: "81", count: 100_000) + "00", .nestingTooDeep(limit: 8)),
        // The depth is checked before the declared count.
        ErrorCase("9b ffffffffffffffff", .nestingTooDeep(limit: 0), maximumDepth: 0),
        ErrorCase("9b ffffffffffffffff", .lengthExceedsInput(declared: .max, available: 0), maximumDepth: 1),
    ])
    func nestingTooDeep(testCase: ErrorCase) {
        #expect(throws: testCase.error) {
            try CBORDecoder.decode(hex(testCase.hex), maximumDepth: testCase.maximumDepth)
        }
    }

    @Test("nesting up to the limit is accepted")
    func nestingAtLimit() throws {
        let eight = hex(String(repeating: "81", count: 8) + "00")
        var expected: CBORValue = 0
        for _ in 0..<8 { expected = [expected] }
        #expect(try CBORDecoder.decode(eight) == expected)
        #expect(try CBORDecoder.decode(hex(String(repeating: "81", count: 7) + "80")).arrayValue?.count == 1)
        #expect(try CBORDecoder.decode(hex(String(repeating: "a1 01", count: 8) + "00")).mapValue != nil)
        #expect(try CBORDecoder.decode(hex("00"), maximumDepth: 0) == 0)
        #expect(try CBORDecoder.decode(hex("81 00"), maximumDepth: 1) == [0])
        let twenty = hex(String(repeating: "81", count: 20) + "00")
        #expect(try CBORDecoder.decode(twenty, maximumDepth: 20).arrayValue != nil)
        #expect(throws: CBORError.nestingTooDeep(limit: 19)) { try CBORDecoder.decode(twenty, maximumDepth: 19) }
    }

    // MARK: Truncation

    static let prefixSamples: [CBORValue] = [
        Samples.makeCredentialRequest,
        .unsigned(.max),
        .negative(0x1234_5678),
        .bytes(Array(0..<30)),
        .text("a\u{fc}\u{6c34}\u{10151}"),
        [1, [2, 3], [4, 5]],
        ["a": 1, "b": [2, 3]],
        [.bytes([]), "", [], [:], .null],
        [[[[[["deep": [1, 2, 3]]]]]]],
    ]

    @Test("every strict prefix fails with the exact error", arguments: prefixSamples)
    func everyPrefix(value: CBORValue) throws {
        let full = CBOREncoder.encode(value)
        #expect(try CBORDecoder.decode(full) == value)
        for length in 0..<full.count {
            let expected = expectedPrefixError(of: full, length: length)
            #expect(isTruncationError(expected))
            #expect(throws: expected, "prefix of length \(length)") {
                try CBORDecoder.decode(full[0..<length])
            }
            #expect(throws: expected, "prefix of length \(length)") {
                try CBORDecoder.decodePrefix(full[0..<length])
            }
        }
    }

    @Test("every prefix of {\"a\": 1, \"b\": [2, 3]}, spelled out")
    func everyPrefixExplicit() throws {
        let full = hex("a2 6161 01 6162 82 02 03")
        let expected: [CBORError] = [
            .truncated,  // nothing
            .lengthExceedsInput(declared: 2, available: 0),  // a2
            .lengthExceedsInput(declared: 2, available: 1),  // a2 61
            .truncated,  // a2 61 61: value of "a" missing
            .truncated,  // + 01: second key missing
            .lengthExceedsInput(declared: 1, available: 0),  // + 61
            .truncated,  // + 62: value of "b" missing
            .lengthExceedsInput(declared: 2, available: 0),  // + 82
            .lengthExceedsInput(declared: 2, available: 1),  // + 02
        ]
        #expect(expected.count == full.count)
        for (length, error) in expected.enumerated() {
            #expect(expectedPrefixError(of: full, length: length) == error)
            #expect(throws: error, "prefix of length \(length)") { try CBORDecoder.decode(full[0..<length]) }
        }
        #expect(try CBORDecoder.decode(full) == ["a": 1, "b": [2, 3]])
    }

    @Test("every prefix of 2^64-1 and of a long byte string, spelled out")
    func everyPrefixScalars() {
        let max = hex("1b ffffffffffffffff")
        for length in 0..<max.count {
            #expect(throws: CBORError.truncated) { try CBORDecoder.decode(max[0..<length]) }
        }
        let bytes = hex("58 1e") + (0..<30).map { UInt8($0) }
        #expect(throws: CBORError.truncated) { try CBORDecoder.decode(bytes[0..<0]) }
        #expect(throws: CBORError.truncated) { try CBORDecoder.decode(bytes[0..<1]) }
        for length in 2..<bytes.count {
            #expect(throws: CBORError.lengthExceedsInput(declared: 30, available: length - 2)) {
                try CBORDecoder.decode(bytes[0..<length])
            }
        }
    }

    private func isTruncationError(_ error: CBORError) -> Bool {
        switch error {
        case .truncated, .lengthExceedsInput: return true
        default: return false
        }
    }

    // MARK: Slices and prefixes

    @Test("decodePrefix returns the rest with the original indices")
    func decodePrefix() throws {
        let bytes = hex("01 02 03")
        let (value, rest) = try CBORDecoder.decodePrefix(bytes[...])
        #expect(value == 1)
        #expect(rest.startIndex == 1)
        #expect(Array(rest) == [0x02, 0x03])

        // Authenticator data style: fixed header, CBOR credential public key, CBOR extensions.
        let header: [UInt8] = Array(repeating: 0x11, count: 37)
        let publicKey: CBORValue = [1: 2, 3: -7, -1: 1, -2: .bytes(Array(repeating: 0xaa, count: 32))]
        let extensions: CBORValue = ["credProtect": 2]
        let authData = header + CBOREncoder.encode(publicKey) + CBOREncoder.encode(extensions)
        let first = try CBORDecoder.decodePrefix(authData[37...])
        #expect(first.value == publicKey)
        let second = try CBORDecoder.decodePrefix(first.rest)
        #expect(second.value == extensions)
        #expect(second.rest.isEmpty)
        #expect(second.rest.startIndex == authData.endIndex)
    }

    @Test("decoding a slice that does not start at index 0")
    func decodeOffsetSlice() throws {
        let bytes = hex("ff ff 82 61 61 20 ff")
        #expect(try CBORDecoder.decode(bytes[2..<6]) == ["a", -1])
        #expect(throws: CBORError.trailingBytes(count: 1)) { try CBORDecoder.decode(bytes[2..<7]) }
        #expect(throws: CBORError.lengthExceedsInput(declared: 2, available: 1)) {
            try CBORDecoder.decode(bytes[2..<4])
        }
        #expect(throws: CBORError.lengthExceedsInput(declared: 1, available: 0)) {
            try CBORDecoder.decode(bytes[3..<4])
        }
    }

    @Test("map key order is not enforced by the decoder")
    func lenientKeyOrder() throws {
        let value = try CBORDecoder.decode(hex("a3 61 62 01 20 02 01 03"))
        let map = try #require(value.mapValue)
        #expect(map.keys == ["b", -1, 1])  // input order is kept
        #expect(TestHex.string(CBOREncoder.encode(value)) == "a3" + "0103" + "2002" + "616201")
    }

    @Test("decoded values have the expected shapes")
    func decodedShapes() throws {
        let value = try CBORDecoder.decode(CBOREncoder.encode(Samples.makeCredentialRequest))
        let map = try #require(value.mapValue)
        #expect(map[int: 1]?.bytesValue?.count == 32)
        #expect(map[int: 2]?.mapValue?[text: "id"]?.textValue == "example.com")
        #expect(map[int: 4]?.arrayValue?.first?.mapValue?[text: "alg"]?.intValue == -7)
        #expect(map[int: 4]?.arrayValue?.last?.mapValue?[text: "alg"]?.intValue == -257)
        #expect(map[int: 7]?.mapValue?[text: "rk"]?.boolValue == true)
        #expect(map[int: 9]?.uint64Value == 2)
        #expect(map[int: 5] == nil)
    }
}
