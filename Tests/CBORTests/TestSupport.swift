import Foundation
import Testing

import CBOR
import TestSupport

// MARK: - Fixtures

/// One entry of `Fixtures/vectors/rfc8949-appendix-a.json`.
struct AppendixAVector: Decodable, Sendable, CustomTestStringConvertible {
    let hex: String
    let diagnostic: String
    let roundtrip: Bool
    let expectError: String?
    let errorArgument: Int?

    var testDescription: String { "\(hex) \(diagnostic)" }

    /// The exact error the decoder must report, built from `expectError` / `errorArgument`.
    var expectedError: CBORError? {
        guard let expectError else { return nil }
        switch expectError {
        case "unsupportedMajorType": return .unsupportedMajorType(UInt8(errorArgument ?? -1))
        case "unsupportedSimpleValue": return .unsupportedSimpleValue(UInt8(errorArgument ?? -1))
        case "indefiniteLength": return .indefiniteLength
        case "reservedAdditionalInfo": return .reservedAdditionalInfo
        case "truncated": return .truncated
        case "invalidUTF8": return .invalidUTF8
        case "duplicateMapKey": return .duplicateMapKey
        case "nonCanonicalEncoding": return .nonCanonicalEncoding
        default: return nil
        }
    }
}

enum Fixtures {
    static let appendixAURL = Repository.fixtures
        .appendingPathComponent("vectors")
        .appendingPathComponent("rfc8949-appendix-a.json")

    static func loadAppendixA() throws -> [AppendixAVector] {
        let data = try Data(contentsOf: appendixAURL)
        return try JSONDecoder().decode([AppendixAVector].self, from: data)
    }

    /// Loaded once for `@Test(arguments:)`; `appendixALoads` checks that loading worked.
    static let appendixA: [AppendixAVector] = (try? loadAppendixA()) ?? []
    static let appendixAValid = appendixA.filter { $0.expectError == nil }
    static let appendixAInvalid = appendixA.filter { $0.expectError != nil }
}

// MARK: - Error cases

/// An input together with the exact error the decoder must throw for it.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    let hex: String
    let error: CBORError
    var maximumDepth: Int = CBORDecoder.defaultMaximumDepth

    init(_ hex: String, _ error: CBORError, maximumDepth: Int = CBORDecoder.defaultMaximumDepth) {
        self.hex = hex
        self.error = error
        self.maximumDepth = maximumDepth
    }

    var testDescription: String { "\(hex) → \(error)" }
}

// MARK: - Truncation oracle

/// The error the decoder must report for the first `length` bytes of `full`, a valid
/// definite-length encoding, when `length < full.count`.
///
/// This models the documented decoder rules independently of the decoder: items are read
/// in order; a head cut short is `.truncated`; a string longer than what is left, or an
/// array/map whose count exceeds the bytes left, is `.lengthExceedsInput` (checked when
/// its head is read); running out of bytes at the start of an item is `.truncated`.
func expectedPrefixError(of full: [UInt8], length: Int) -> CBORError {
    var position = 0
    var pendingItems: UInt64 = 1
    while pendingItems > 0 {
        guard position < length else { return .truncated }
        let initial = full[position]
        let majorType = initial >> 5
        let additionalInfo = Int(initial & 0x1f)
        let argumentLength = additionalInfo < 24 ? 0 : 1 << (additionalInfo - 24)
        guard position + 1 + argumentLength <= length else { return .truncated }
        var argument = UInt64(additionalInfo)
        if argumentLength > 0 {
            argument = 0
            for offset in 0..<argumentLength {
                argument = argument << 8 | UInt64(full[position + 1 + offset])
            }
        }
        position += 1 + argumentLength
        pendingItems -= 1
        let available = length - position
        switch majorType {
        case 2, 3:
            guard argument <= UInt64(available) else {
                return .lengthExceedsInput(declared: argument, available: available)
            }
            position += Int(argument)
        case 4, 5:
            guard argument <= UInt64(available) else {
                return .lengthExceedsInput(declared: argument, available: available)
            }
            pendingItems += majorType == 4 ? argument : 2 * argument
        default:
            break
        }
    }
    // The prefix holds a complete item: only possible when length == full.count.
    return .trailingBytes(count: 0)
}

// MARK: - Sample CTAP structures

enum Samples {
    /// A CTAP2 authenticatorMakeCredential request parameter map (CTAP 2.1 §6.1).
    static let makeCredentialRequest: CBORValue = {
        let clientDataHash = CBORValue.bytes((0..<32).map { UInt8($0 &* 7 &+ 3) })
        let rp: CBORValue = ["id": "example.com", "name": "Example RP"]
        let user: CBORValue = [
            "id": .bytes([
                0x30, 0x82, 0x01, 0x93, 0x30, 0x82, 0x01, 0x38, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x30, 0x82, 0x09,
            ]),
            "name": "alice@example.com",
            "displayName": "Alice Liddell",
        ]
        let es256: CBORValue = ["alg": -7, "type": "public-key"]
        let rs256: CBORValue = ["alg": -257, "type": "public-key"]
        let options: CBORValue = ["rk": true, "uv": false]
        var map = CBORMap()
        map[int: 1] = clientDataHash
        map[int: 2] = rp
        map[int: 3] = user
        map[int: 4] = [es256, rs256]
        map[int: 7] = options
        map[int: 8] = .bytes(Array(repeating: 0xab, count: 16))
        map[int: 9] = 2
        return .map(map)
    }()
}
