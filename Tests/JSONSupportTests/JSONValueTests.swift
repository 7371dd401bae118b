import Foundation
import JSONSupport
import Testing
import TestSupport

@Suite("JSONValue: the project's one JSON type")
struct JSONValueTests {
    /// Number text and what it reads as: an integer when it has no fraction or exponent and fits
    /// Int, or when its value is exactly integral and fits Int; otherwise a Double.
    static let numbers: [(text: String, integer: Int?, written: String)] = [
        ("0", 0, "0"),
        ("-0", 0, "0"),
        ("42", 42, "42"),
        ("1.0", 1, "1"),
        ("1e3", 1000, "1000"),
        ("1E2", 100, "100"),
        ("100e-2", 1, "1"),
        ("0.1e1", 1, "1"),
        ("1.5", nil, "1.5"),
        ("-2.25", nil, "-2.25"),
        ("1e300", nil, "1e+300"),
        // Where the SDK's and the control channel's old types disagreed (whole below 1e15 in one,
        // below 9e15 in the other): an integer, exactly.
        ("5000000000000000", 5_000_000_000_000_000, "5000000000000000"),
        // Beyond a Double's 53 bits: still exact, because it has no fraction and fits Int.
        ("9007199254740993", 9_007_199_254_740_993, "9007199254740993"),
        ("9223372036854775807", Int.max, "9223372036854775807"),
        ("-9223372036854775808", Int.min, "-9223372036854775808"),
        // Integral but beyond Int: a Double.
        ("9223372036854775808", nil, "9.223372036854776e+18"),
    ]

    @Test("a number is an integer only without fraction/exponent, or when exactly integral and fitting Int",
          arguments: numbers)
    func numberRule(text: String, integer: Int?, written: String) throws {
        let value = try JSONValue(parsing: "[\(text)]")
        let number = try #require(value.arrayValue?.first)
        #expect(number.intValue == integer)
        if let integer {
            #expect(number == .integer(integer))
        } else {
            guard case .number = number else { throw TestFailure("\(text) read as \(number)") }
        }
        #expect(number.text == written)
        #expect(try JSONValue(parsing: number.text) == number)
    }

    @Test("a Double built in code follows the same rule: whole values are integers")
    func doublesInCode() {
        #expect(JSONValue.number(3.0) == .integer(3))
        #expect(JSONValue.number(3.0).hashValue == JSONValue.integer(3).hashValue)
        #expect(JSONValue.number(3.0).intValue == 3)
        #expect(JSONValue.number(3.0).text == "3")
        #expect(JSONValue.number(5e15).intValue == 5_000_000_000_000_000)
        #expect(JSONValue.number(5e15).text == "5000000000000000")
        #expect(JSONValue.number(3.5).intValue == nil)
        #expect(JSONValue.number(3.5) != .integer(3))
        #expect(JSONValue.number(1e19).intValue == nil)
        #expect(JSONValue.number(.nan).text == "null")
        #expect(JSONValue.int(UInt64.max) == .number(Double(UInt64.max)))
        #expect(JSONValue.int(UInt32.max) == .integer(4_294_967_295))
        #expect(Set<JSONValue>([.number(2), .integer(2), 2]).count == 1)
    }

    @Test("text: compact, keys sorted, slashes plain, strings escaped; it parses back equal")
    func text() throws {
        let value: JSONValue = ["b": 1, "a": [.number(0.5), true, nil, "x\"y\n"], "c": "https://x/y"]
        #expect(value.text == #"{"a":[0.5,true,null,"x\"y\n"],"b":1,"c":"https://x/y"}"#)
        #expect(try JSONValue(parsing: value.text) == value)
    }

    @Test("access: members, strings, bools, numbers, arrays, objects")
    func access() throws {
        let value = try JSONValue(parsing: #"{"s":"t","b":false,"n":2.5,"i":7,"a":[1],"o":{"k":null}}"#)
        #expect(value["s"]?.stringValue == "t")
        #expect(value["b"]?.boolValue == false)
        #expect(value["n"]?.numberValue == 2.5)
        #expect(value["i"]?.numberValue == 7)
        #expect(value["i"]?.intValue == 7)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?.objectValue == ["k": .null])
        #expect(value["missing"] == nil)
        #expect(value["s"]?["k"] == nil)
        #expect(value["s"]?.intValue == nil)
        #expect(JSONValue.optional(nil) == .null)
        #expect(JSONValue.optional("x") == "x")
    }

    static let notJSON = ["", "{", "[1,", "{op: counter", "tru", "\"unterminated", "1 2",
                          String(repeating: "[", count: 600) + String(repeating: "]", count: 600)]

    @Test("text that is not one JSON value is a ParseError quoting its start", arguments: notJSON)
    func refused(text: String) {
        let error = #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.description == "not JSON: \(text.prefix(80))")
    }
}
