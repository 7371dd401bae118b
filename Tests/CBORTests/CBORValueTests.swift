import CBOR
import Testing

@Suite("CBORValue and CBORMap")
struct CBORValueTests {
    // MARK: Integers

    @Test("int(_:) picks unsigned or negative", arguments: [
        (0, CBORValue.unsigned(0)), (1, .unsigned(1)), (-1, .negative(0)), (-2, .negative(1)),
        (Int.max, .unsigned(UInt64(Int.max))), (Int.min, .negative(UInt64(Int.max))),
    ])
    func intConstructor(input: Int, expected: CBORValue) {
        #expect(CBORValue.int(input) == expected)
        #expect(expected.intValue == input)
    }

    @Test("intValue is nil when the value does not fit in Int")
    func intValueRange() {
        #expect(CBORValue.unsigned(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.unsigned(.max).intValue == nil)
        #expect(CBORValue.negative(UInt64(Int.max)).intValue == Int.min)
        #expect(CBORValue.negative(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.negative(.max).intValue == nil)
        #expect(CBORValue.text("1").intValue == nil)
        #expect(CBORValue.unsigned(.max).uint64Value == .max)
        #expect(CBORValue.negative(0).uint64Value == nil)
    }

    @Test("typed accessors return nil for other kinds")
    func accessors() {
        let values: [CBORValue] = [1, .bytes([1]), "t", [1], [1: 1], true, .null, .undefined]
        #expect(values.compactMap(\.bytesValue) == [[1]])
        #expect(values.compactMap(\.textValue) == ["t"])
        #expect(values.compactMap(\.arrayValue) == [[1]])
        #expect(values.compactMap(\.mapValue) == [[1: 1]])
        #expect(values.compactMap(\.boolValue) == [true])
        #expect(values.compactMap(\.intValue) == [1])
        #expect(values.filter(\.isNull) == [.null])
        #expect(values.map(\.majorType) == [0, 2, 3, 4, 5, 7, 7, 7])
    }

    // MARK: Literals

    @Test("literals build the expected cases")
    func literals() {
        let int: CBORValue = -5
        let text: CBORValue = "hi"
        let bool: CBORValue = false
        let array: CBORValue = [1, "a", [true]]
        let map: CBORValue = ["z": 1, "a": 2]
        #expect(int == .negative(4))
        #expect(text == .text("hi"))
        #expect(bool == .bool(false))
        #expect(array == .array([.unsigned(1), .text("a"), .array([.bool(true)])]))
        // Dictionary literals keep their order.
        #expect(map.mapValue?.keys == ["z", "a"])
        #expect(map.diagnosticNotation == "{\"z\": 1, \"a\": 2}")
        let cborMap: CBORMap = [3: "c", 1: "a"]
        #expect(cborMap.keys == [3, 1])
    }

    // MARK: Diagnostic notation

    @Test("diagnostic notation of scalars", arguments: [
        (CBORValue.unsigned(0), "0"), (.unsigned(.max), "18446744073709551615"), (.int(-1), "-1"),
        (.int(-1000), "-1000"), (.negative(.max), "-18446744073709551616"),
        (.negative(.max - 1), "-18446744073709551615"), (.int(Int.min), "-9223372036854775808"),
        (.bytes([]), "h''"), (.bytes([0x01, 0x02, 0xab, 0xff]), "h'0102abff'"),
        (.text(""), "\"\""), (.text("text"), "\"text\""), (.text("a\"b\\c"), "\"a\\\"b\\\\c\""),
        (.text("line\nnext\ttab\u{1}\u{7f}"), "\"line\\nnext\\ttab\\u0001\\u007f\""),
        (.text("\u{fc}\u{6c34}\u{10151}"), "\"\u{fc}\u{6c34}\u{10151}\""),
        (.bool(true), "true"), (.bool(false), "false"), (.null, "null"), (.undefined, "undefined"),
        (.array([]), "[]"), (.map(CBORMap()), "{}"),
    ])
    func diagnosticScalars(value: CBORValue, expected: String) {
        #expect(value.diagnosticNotation == expected)
        #expect("\(value)" == expected)
    }

    @Test("diagnostic notation of nested structures")
    func diagnosticNested() {
        let value: CBORValue = [
            1: [1, 2],
            "a": true,
            -1: ["x": .null, "y": [.undefined, .bytes([0xca, 0xfe])]],
            "nested": [[], [:], [[1]]],
        ]
        #expect(
            value.diagnosticNotation
                == #"{1: [1, 2], "a": true, -1: {"x": null, "y": [undefined, h'cafe']}, "nested": [[], {}, [[1]]]}"#)
        #expect(
            Samples.makeCredentialRequest.mapValue?[int: 4]?.diagnosticNotation
                == "[{\"alg\": -7, \"type\": \"public-key\"}, {\"alg\": -257, \"type\": \"public-key\"}]")
        let map: CBORMap = [1: 2, "a": true]
        #expect(map.description == "{1: 2, \"a\": true}")
    }

    // MARK: CBORMap

    @Test("subscript set replaces, appends and removes")
    func mapSubscript() {
        var map = CBORMap()
        #expect(map.isEmpty)
        map[1] = "one"
        map["two"] = 2
        map[int: -3] = "minus three"
        map[text: "four"] = 4
        #expect(map.keys == [1, "two", -3, "four"])
        map[1] = "uno"  // replaces in place
        #expect(map.keys == [1, "two", -3, "four"])
        #expect(map[int: 1] == "uno")
        #expect(map[text: "two"] == 2)
        #expect(map[int: -3] == "minus three")
        #expect(map[.int(-3)] == "minus three")
        map["two"] = nil  // removes
        #expect(map.keys == [1, -3, "four"])
        map["absent"] = nil
        #expect(map.count == 3)
        #expect(map.removeValue(forKey: -3) == "minus three")
        #expect(map.removeValue(forKey: -3) == nil)
        #expect(map.values == ["uno", 4])
        #expect(map.index(forKey: "four") == 1)
        #expect(map[text: "1"] == nil)
        #expect(map[int: 2] == nil)
    }

    @Test("keys of different kinds never collide")
    func keyKinds() {
        var map = CBORMap()
        map[1] = "int"
        map["1"] = "text"
        map[.bytes([1])] = "bytes"
        map[true] = "bool"
        map[[1]] = "array"
        #expect(map.count == 5)
        #expect(map[int: 1] == "int")
        #expect(map[text: "1"] == "text")
        #expect(map[.bytes([1])] == "bytes")
    }

    @Test("init(_:) and literals keep the first position and the last value of a repeated key")
    func duplicateInitialisation() {
        let map = CBORMap([(key: 1, value: "a"), (key: 2, value: "b"), (key: 1, value: "c")])
        #expect(map.count == 2)
        #expect(map.keys == [1, 2])
        #expect(map[int: 1] == "c")
        let literal: CBORMap = ["k": 1, "j": 2, "k": 3]
        #expect(literal.entries.map(\.key) == ["k", "j"])
        #expect(literal[text: "k"] == 3)
        // Large inputs take the hashing path.
        var entries: [(key: CBORValue, value: CBORValue)] = (0..<30).map { (key: .int($0), value: .int($0)) }
        entries.append((key: 5, value: "five"))
        let large = CBORMap(entries)
        #expect(large.count == 30)
        #expect(large[int: 5] == "five")
        #expect(large.keys.first == 0)
    }

    @Test("map equality and hashing ignore insertion order")
    func mapEquality() {
        let a: CBORMap = [1: "x", "k": [1, 2], -1: .null]
        let b: CBORMap = [-1: .null, 1: "x", "k": [1, 2]]
        let c: CBORMap = [-1: .null, 1: "y", "k": [1, 2]]
        let d: CBORMap = [-1: .null, 1: "x"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(CBORValue.map(a) == .map(b))
        #expect(CBORValue.map(a).hashValue == CBORValue.map(b).hashValue)
        #expect(a != c)
        #expect(a != d)
        #expect(Set<CBORValue>([.map(a), .map(b), .map(c)]).count == 2)
        // Iteration follows insertion order.
        #expect(b.map(\.key) == [-1, 1, "k"])
        #expect(Array(a).count == 3)
    }

    @Test("text equality is byte-wise, as in CBOR")
    func textEquality() {
        let composed = CBORValue.text("\u{e9}")
        let decomposed = CBORValue.text("e\u{301}")
        #expect("\u{e9}" == "e\u{301}")  // Swift's String equality…
        #expect(composed != decomposed)  // …is not CBOR's.
        #expect(Set([composed, decomposed]).count == 2)
        var map = CBORMap()
        map[composed] = 1
        map[decomposed] = 2
        #expect(map.count == 2)
        #expect(CBORValue.text("same") == .text("same"))
        #expect(CBORValue.text("same").hashValue == CBORValue.text("same").hashValue)
    }

    @Test("equality distinguishes kinds")
    func kindEquality() {
        #expect(CBORValue.unsigned(0) != .negative(0))
        #expect(CBORValue.bytes([0x61]) != .text("a"))
        #expect(CBORValue.array([]) != .map(CBORMap()))
        #expect(CBORValue.null != .undefined)
        #expect(CBORValue.bool(false) != .null)
        #expect(CBORValue.int(-1) == .negative(0))
    }

    @Test("encoded() is CBOREncoder.encode")
    func encodedMethod() {
        let value = Samples.makeCredentialRequest
        #expect(value.encoded() == CBOREncoder.encode(value))
    }

    @Test("every error has a description")
    func errorDescriptions() {
        let errors: [CBORError] = [
            .truncated, .trailingBytes(count: 2), .indefiniteLength, .reservedAdditionalInfo,
            .unsupportedMajorType(6), .unsupportedSimpleValue(16), .nestingTooDeep(limit: 8),
            .lengthExceedsInput(declared: 10, available: 2), .invalidUTF8, .duplicateMapKey, .nonCanonicalEncoding,
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(CBORError.lengthExceedsInput(declared: 10, available: 2).description.contains("10"))
    }
}
