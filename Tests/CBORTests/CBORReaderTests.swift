import CBOR
import Testing
import TestSupport

/// The pull reader: tokens, whole items skipped exactly as decoded, every prefix, map keys.
@Suite("CBORReader")
struct CBORReaderTests {
    @Test("tokens come in input order, strings as slices of the input")
    func tokens() throws {
        let input = hex("a3 01 63 616263 02 82 42 0102 f5 20 a0")
        var reader = CBORReader(input[...])
        #expect(try reader.next() == .map(count: 3))
        #expect(try reader.next() == .unsigned(1))
        #expect(try reader.next() == .text(3..<6))
        #expect(reader[3..<6] == hex("616263")[...])
        #expect(try reader.next() == .unsigned(2))
        #expect(try reader.next() == .array(count: 2))
        #expect(try reader.next() == .bytes(9..<11))
        #expect(try reader.next() == .bool(true))
        reader.endContainer()
        #expect(try reader.next() == .negative(0))
        #expect(try reader.next() == .map(count: 0))
        reader.endContainer()
        reader.endContainer()
        #expect(reader.isAtEnd)
        try reader.finish()
        #expect(throws: CBORError.truncated) { try reader.next() }
    }

    @Test("skipItem checks what decoding checks and returns the item as sent",
          arguments: CBORDecoderTests.prefixSamples)
    func skipIsDecoding(value: CBORValue) throws {
        let full = CBOREncoder.encode(value) + [0x00]
        var reader = CBORReader(full[...])
        #expect(try reader.skipItem() == full.dropLast())
        #expect(reader.remainingCount == 1)
        #expect(throws: CBORError.trailingBytes(count: 1)) { try reader.finish() }
        var again = CBORReader(full[...])
        #expect(try again.value() == value)
        #expect(again.position == full.count - 1)
    }

    @Test("every strict prefix of an item fails to skip with the decoder's error, the whole item does not",
          arguments: CBORDecoderTests.prefixSamples)
    func everyPrefix(value: CBORValue) throws {
        let full = CBOREncoder.encode(value)
        for length in 0..<full.count {
            var reader = CBORReader(full[0..<length])
            #expect(throws: expectedPrefixError(of: full, length: length), "prefix of length \(length)") {
                try reader.skipItem()
            }
        }
        var reader = CBORReader(full[...])
        #expect(try reader.skipItem().count == full.count)
    }

    @Test("a skipped item fails exactly as it fails to decode", arguments: [
        "a2 01 00 01 00", "a3 02 00 01 00 02 00", "81 c0 00", "82 01 9f ff", "a1 61 ff 00", "81 18 05",
        "a1 a2 01 00 01 00 00", "5a ffffffff 00", "81 81 81 81 81 81 81 81 81 00", "f9 3c00", "a2 00 a1 01 01 00",
    ])
    func skipFailsAsDecoding(input: String) {
        let bytes = hex(input)
        let decoded = Result { () throws(CBORError) in try CBORDecoder.decode(bytes) }
        var reader = CBORReader(bytes[...])
        let skipped = Result { () throws(CBORError) in _ = try reader.skipItem(); try reader.finish() }
        guard case .failure(let expected) = decoded else {
            Issue.record("\(input) decodes")
            return
        }
        #expect(throws: expected) { try skipped.get() }
    }

    @Test("the depth cap: a top-level array or map is at depth 1")
    func depth() throws {
        var shallow = CBORReader(hex("81 81 00")[...], maximumDepth: 2)
        _ = try shallow.skipItem()
        var deep = CBORReader(hex("81 81 81 00")[...], maximumDepth: 2)
        #expect(throws: CBORError.nestingTooDeep(limit: 2)) { try deep.skipItem() }
        var closed = CBORReader(hex("81 00 81 00")[...], maximumDepth: 1)
        #expect(try closed.next() == .array(count: 1))
        #expect(try closed.next() == .unsigned(0))
        closed.endContainer()
        #expect(try closed.next() == .array(count: 1), "a closed array frees its level")
    }

    @Test("duplicate keys are caught in order, out of order, past 16 keys, and as equal containers", arguments: [
        ("a3 01 00 02 00 02 00", true),  // the one before
        ("a3 02 00 01 00 02 00", true),  // out of order, an earlier key
        ("a3 02 00 01 00 03 00", false),  // out of order, no repeat
        ("a2 a2 01 00 02 00 00 a2 02 00 01 00 00", true),  // one map key written in two orders
        ("a2 82 01 02 00 82 02 01 00", false),
        ("a2 61 62 00 61 61 00", false),  // "b" then "a": out of order, distinct
        ("a3 61 62 00 61 61 00 61 62 00", true),
        ("a2 f4 00 f4 00", true),
        ("a2 20 00 01 00", false),  // -1 after 0's major type
    ])
    func duplicates(input: String, duplicated: Bool) {
        let bytes = hex(input)
        var reader = CBORReader(bytes[...])
        let result = Result { () throws(CBORError) in try reader.skipItem() }
        let decoded = Result { () throws(CBORError) in try CBORDecoder.decode(bytes) }
        if duplicated {
            #expect(throws: CBORError.duplicateMapKey) { try result.get() }
            #expect(throws: CBORError.duplicateMapKey) { try decoded.get() }
        } else {
            #expect(result.map { Array($0) } == .success(bytes))
            #expect(decoded.isSuccess)
        }
    }

    @Test("a large map out of order: a repeat of any earlier key is caught")
    func largeMapOutOfOrder() throws {
        var keys = Array(0..<40).reversed().map { UInt64($0 * 7) }
        func encoded(_ keys: [UInt64]) -> [UInt8] {
            var writer = [UInt8(0xB8), UInt8(keys.count)]
            for key in keys { writer += CBOREncoder.encode(.unsigned(key)) + [0xF6] }
            return writer
        }
        var unique = CBORReader(encoded(keys)[...])
        _ = try unique.skipItem()
        for repeated in [0, 17, 39] {
            keys[repeated == 0 ? 1 : 0] = keys[repeated]
            var reader = CBORReader(encoded(keys)[...])
            #expect(throws: CBORError.duplicateMapKey) { try reader.skipItem() }
            keys = Array(0..<40).reversed().map { UInt64($0 * 7) }
        }
    }

    @Test("mapKey reads a whole key: a container key's elements, then the value follows")
    func mapKeys() throws {
        let input = hex("a2 81 00 01 02 03")
        var reader = CBORReader(input[...])
        #expect(try reader.next() == .map(count: 2))
        var keys = reader.startMapKeys()
        #expect(try reader.mapKey(&keys) == .array(count: 1))
        #expect(try reader.next() == .unsigned(1))
        #expect(try reader.mapKey(&keys) == .unsigned(2))
        #expect(try reader.skipItem() == input[5...])
        reader.endContainer()
        try reader.finish()
    }
}

extension CBORReaderTests {
    @Test("skip(encoded:) reads exactly the bytes given, or nothing")
    func skipEncoded() throws {
        let input = hex("62 6964 64 74797065")
        var reader = CBORReader(input[...])
        var matched = reader.skip(encoded: hex("64 74797065"))
        #expect(!matched && reader.position == 0)
        matched = reader.skip(encoded: hex("62 6964"))
        #expect(matched)
        matched = reader.skip(encoded: hex("64 74797065 00"))
        #expect(!matched, "more bytes than are left")
        matched = reader.skip(encoded: hex("64 74797065"))
        #expect(matched && reader.isAtEnd)
        matched = reader.skip(encoded: hex("00"))
        #expect(!matched)
    }

    @Test("mapKey() reads a key whole without keeping it; addKey keeps it")
    func keysKeptApart() throws {
        let input = hex("a3 01 00 82 01 02 00 01 00")
        var reader = CBORReader(input[...])
        #expect(try reader.next() == .map(count: 3))
        var keys = reader.startMapKeys()
        for expected in [CBORToken.unsigned(1), .array(count: 2), .unsigned(1)] {
            let start = reader.position
            #expect(try reader.mapKey() == expected)
            if expected == .array(count: 2) { try reader.addKey(from: start, to: &keys) }
            #expect(try reader.next() == .unsigned(0))
        }
        var again = CBORReader(input[...])
        #expect(throws: CBORError.duplicateMapKey) { try again.skipItem() }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
